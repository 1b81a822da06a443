import { labApi } from '../api';
import { dispositionWords, stageLabel } from '../decision-words';
import { useAction } from '../use-action';
import { Status } from './status';

/**
 * The first screen's guided case: one click runs "a second tool nobody scoped" and walks through it in three
 * steps — what the model asked for, what the hand-secured tool did, what Verdict decided and where.
 */
export function GuidedCase() {
  const { data, loading, error, run } = useAction(labApi.whyVerdict);
  const manual = data?.paths.find((path) => path.path === 'manual');
  const verdict = data?.paths.find((path) => path.path === 'verdict');
  const refusedAt = verdict?.call.stages.find((stage) => stage.disposition !== 'permit');
  return (
    <section className="hero" aria-labelledby="guided-title">
      <p className="what">
        <strong>Verdict</strong> is a NestJS module that decides, in your application, whether each tool call an LLM
        agent proposes may run — and records why.
      </p>
      <h3 id="guided-title">Start here: an agent asked to cancel someone else's order</h3>
      <button type="button" id="run-guided" disabled={loading} onClick={() => void run('forgotten-tool')}>
        Run the guided case
      </button>
      <Status loading={loading} error={error} />
      {manual !== undefined && verdict !== undefined && (
        <ol className="guided" id="guided-steps">
          <li>
            Customer 72 asks the agent: <em>{manual.call.untrustedInput.replace(/^Customer 72: /, '')}</em> The model
            proposes <code>{manual.call.proposal.tool}</code> for order 1001 — customer 91's order.
          </li>
          <li>
            The hand-secured tool, which nobody scoped, runs it: <strong>{manual.outcome}</strong> (
            {manual.call.sideEffect}).
          </li>
          <li>
            Verdict's bound tool: <strong>{dispositionWords(verdict.outcome)}</strong>
            {refusedAt !== undefined && <> at {stageLabel(refusedAt)}</>} — {verdict.call.sideEffect}. The model is told
            only <q>{publicMessageOf(verdict.call.modelSaw)}</q>. The full run is the first case below.
          </li>
        </ol>
      )}
    </section>
  );
}

function publicMessageOf(modelSaw: string): string {
  try {
    return String((JSON.parse(modelSaw) as { message?: unknown }).message ?? modelSaw);
  } catch {
    return modelSaw;
  }
}
