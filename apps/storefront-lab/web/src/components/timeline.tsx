import type { StageView } from '../api';
import { Hash } from './hash';

/** The stages Verdict recorded for one call, in pipeline order; each stage's evidence expands. */
export function Timeline({ stages }: { stages: readonly StageView[] }) {
  if (stages.length === 0) return <p className="muted">No decision recorded: Verdict is not on this path.</p>;
  return (
    <ol className="timeline" aria-label="Stage timeline">
      {stages.map((stage, index) => (
        <li key={index} data-stage={stage.stage} data-disposition={stage.disposition}>
          <details>
            <summary>
              <span className="stage-name">{stage.stage.replace('_', ' ')}</span>
              <span className={`badge ${stage.disposition}`}>{stage.disposition}</span>
              <span className="reason">{stage.reason}</span>
            </summary>
            <dl className="evidence">
              {Object.entries(stage.evidence).map(([key, value]) => (
                <div key={key}>
                  <dt>{key}</dt>
                  <dd>{typeof value === 'string' ? <Hash value={value} /> : String(value)}</dd>
                </div>
              ))}
            </dl>
          </details>
        </li>
      ))}
    </ol>
  );
}
