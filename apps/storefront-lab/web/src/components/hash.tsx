import { useState } from 'react';

const HEX = /^[0-9a-f]{32,}$/;

/**
 * A fingerprint shown short, with what it means on hover (`meaning`) and the full value on click (keyboard: Enter
 * or Space). Anything that is not a long hex value is shown as it is.
 */
export function Hash({ value, meaning }: { value: string; meaning?: string }) {
  const [full, setFull] = useState(false);
  if (!HEX.test(value)) return <code title={meaning}>{value}</code>;
  const hint = meaning === undefined ? value : `${meaning}\n${value}`;
  return (
    <button
      type="button"
      className="hash"
      aria-expanded={full}
      aria-label={full ? undefined : `${value.slice(0, 10)}…, ${meaning ?? 'a fingerprint'}: show in full`}
      title={hint}
      onClick={() => setFull(!full)}
    >
      <code>{full ? value : `${value.slice(0, 10)}…`}</code>
    </button>
  );
}
