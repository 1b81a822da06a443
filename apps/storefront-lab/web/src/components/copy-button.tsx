import { useState } from 'react';

/** Copies `value` to the clipboard; says so for two seconds ("Copied"), or that the browser refused. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  return (
    <button
      type="button"
      className="copy"
      onClick={() => void copy().then(() => setTimeout(() => setState('idle'), 2000))}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
      <span className="visually-hidden"> {label}</span>
    </button>
  );
}
