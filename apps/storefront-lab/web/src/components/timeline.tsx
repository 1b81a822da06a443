import type { StageView } from '../api';
import { dispositionWords, reasonWords, stageLabel, stepOf } from '../decision-words';
import { evidenceMeaning } from './evidence-meaning';
import { Hash } from './hash';

/** The stages Verdict recorded for one call, in pipeline order, one label each; each stage's evidence expands. */
export function Timeline({ stages }: { stages: readonly StageView[] }) {
  if (stages.length === 0) return <p className="muted">No decision recorded: Verdict is not on this path.</p>;
  return (
    <ol className="timeline" aria-label="Stage timeline">
      {stages.map((stage, index) => {
        const reason = reasonWords(stage);
        return (
          <li key={index} data-stage={stage.stage} data-step={stepOf(stage)} data-disposition={stage.disposition}>
            <details>
              <summary>
                <span className="stage-name">{stageLabel(stage)}</span>
                <span className={`badge ${stage.disposition}`}>{dispositionWords(stage.disposition)}</span>
                {reason !== null && <span className="reason">{reason}</span>}
              </summary>
              <dl className="evidence">
                {Object.entries(stage.evidence).map(([key, value]) => (
                  <div key={key}>
                    <dt>{key}</dt>
                    <dd>
                      {typeof value === 'string' ? (
                        <Hash value={value} meaning={evidenceMeaning(key)} />
                      ) : (
                        <span title={evidenceMeaning(key)}>{String(value)}</span>
                      )}
                    </dd>
                  </div>
                ))}
              </dl>
            </details>
          </li>
        );
      })}
    </ol>
  );
}
