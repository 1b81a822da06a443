import { Breakable } from './breakable';

/** `text` with every occurrence of a `needles` entry marked (case-insensitive), for injected values in untrusted text. */
export function Highlighted({ text, needles }: { text: string; needles: readonly string[] }) {
  const wanted = needles.filter((needle) => needle.length > 0);
  if (wanted.length === 0) return <Breakable text={text} />;
  const escaped = wanted.map((needle) => needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const parts = text.split(new RegExp(`(${escaped.join('|')})`, 'gi'));
  return (
    <>
      {parts.map((part, index) =>
        index % 2 === 1 ? (
          <mark key={index} className="injected" data-testid="injected-text">
            <Breakable text={part} />
          </mark>
        ) : (
          <Breakable key={index} text={part} />
        ),
      )}
    </>
  );
}
