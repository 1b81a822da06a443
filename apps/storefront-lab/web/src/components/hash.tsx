import { useState } from 'react';

const HEX = /^[0-9a-f]{32,}$/;

/** A fingerprint shown short; the full value on click (keyboard: Enter or Space). */
export function Hash({ value }: { value: string }) {
  const [full, setFull] = useState(false);
  if (!HEX.test(value)) return <code>{value}</code>;
  return (
    <button type="button" className="hash" aria-expanded={full} title={value} onClick={() => setFull(!full)}>
      <code>{full ? value : `${value.slice(0, 10)}…`}</code>
    </button>
  );
}
