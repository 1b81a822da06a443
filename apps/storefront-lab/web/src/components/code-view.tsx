/** Source code shown beside a result: the part of `source` from the line holding `from` (to `to`, exclusive). */
export function CodeView({ title, source, from, to }: { title: string; source: string; from?: string; to?: string }) {
  const start = from === undefined ? 0 : Math.max(0, source.lastIndexOf('\n', source.indexOf(from)) + 1);
  const end = to === undefined ? source.length : source.indexOf(to, start + 1);
  return (
    <figure className="code">
      <figcaption>{title}</figcaption>
      <pre tabIndex={0} aria-label={title}>
        <code>{source.slice(start, end === -1 ? source.length : end).trim()}</code>
      </pre>
    </figure>
  );
}
