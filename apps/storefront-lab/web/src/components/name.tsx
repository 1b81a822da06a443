import { Fragment } from 'react';

/**
 * A tool, capability or argument name that may break only after its separators (`orders.staff_refund` breaks
 * after `.` or `_`, never mid-word).
 */
export function Name({ value }: { value: string }) {
  const parts = value.split(/(?<=[._/-])/);
  return (
    <code className="name">
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </code>
  );
}
