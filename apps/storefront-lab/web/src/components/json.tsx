/** JSON pretty-printed, wrapping at commas and spaces, never mid-word. */
export function Json({ value, label }: { value: unknown; label?: string }) {
  const text = typeof value === 'string' ? prettyIfJson(value) : JSON.stringify(value, null, 2);
  return (
    <pre className="json" aria-label={label} tabIndex={0}>
      {text}
    </pre>
  );
}

function prettyIfJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
