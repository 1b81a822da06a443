import type { LabRun } from '../api';
import { CallRow } from './call-row';

/** A lab run: its summary, then every call in the four columns. */
export function RunView({ run }: { run: LabRun }) {
  return (
    <div className="run">
      <p className="summary" data-testid="summary">
        {run.summary}
      </p>
      {run.calls.map((call, index) => (
        <CallRow key={call.toolCallId} call={call} label={`Call ${index + 1}`} />
      ))}
    </div>
  );
}
