import { CopyButton } from './copy-button';
import { Breakable, Name } from './breakable';

/**
 * Proposed arguments, one per row: the name (never broken mid-word) and the whole value, wrapped rather than
 * cut, with a copy button — the values that matter (an IBAN, a host, a recipient, a link) are always all there.
 */
export function ArgumentList({ values, label }: { values: Readonly<Record<string, unknown>>; label: string }) {
  const entries = Object.entries(values);
  if (entries.length === 0) return <p className="muted">no arguments</p>;
  return (
    <dl className="arguments" aria-label={label}>
      {entries.map(([name, value]) => {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        return (
          <div key={name} data-argument={name}>
            <dt>
              <Name value={name} />
            </dt>
            <dd>
              <code className="value" data-testid="argument-value">
                <Breakable text={text} />
              </code>
              <CopyButton value={text} label={name} />
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
