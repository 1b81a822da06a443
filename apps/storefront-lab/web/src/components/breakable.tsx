import { Fragment } from 'react';

/** Where a name may break: after its separators, never inside a word. */
const NAME_BREAKS = /(?<=[._/-])/;
/** Where a value may break first: after the separators of hosts, addresses, links and paths. */
const VALUE_BREAKS = /(?<=[._/@:?&=-])/;

/** `text` with a line-break opportunity (`<wbr>`) after each separator `breaks` matches. */
export function Breakable({ text, breaks = VALUE_BREAKS }: { text: string; breaks?: RegExp }) {
  return (
    <>
      {text.split(breaks).map((part, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </>
  );
}

/**
 * A tool, capability or argument name that may break only after its separators (`orders.staff_refund` breaks
 * after `.` or `_`, never mid-word).
 */
export function Name({ value }: { value: string }) {
  return (
    <code className="name">
      <Breakable text={value} breaks={NAME_BREAKS} />
    </code>
  );
}
