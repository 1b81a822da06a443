import type { CallView } from '../api';
import { ArgumentList } from './argument-list';
import { Highlighted } from './highlighted';
import { Json } from './json';
import { Breakable, Name } from './breakable';
import { Timeline } from './timeline';
import { dispositionWords } from '../decision-words';

/**
 * One call in the four columns: untrusted input | model proposal | policy decision | observed side effect.
 * Arguments the provenance ledger marks as derived from untrusted content are listed, and their values
 * highlighted in the untrusted input. `sideEffect` replaces the observed side effect when something later caused
 * it for this call (the worker's refund after a staff review): the effect is credited to the call it belongs to.
 */
export function CallRow({ call, label, sideEffect }: { call: CallView; label?: string; sideEffect?: string }) {
  const derived = call.derivedArguments ?? [];
  const derivedValues = derived.map(({ path }) => String(call.proposal.arguments[path] ?? ''));
  return (
    <article className="call" data-outcome={call.outcome} data-tool-call={call.toolCallId}>
      {label !== undefined && <h4 className="call-label">{label}</h4>}
      <div className="columns">
        <section>
          <h5>Untrusted input</h5>
          <p className="untrusted">
            <Highlighted text={call.untrustedInput} needles={derivedValues} />
          </p>
        </section>
        <section>
          <h5>Model proposal</h5>
          <p className="tool">
            <Name value={call.proposal.tool} />
          </p>
          <ArgumentList values={call.proposal.arguments} label="proposed arguments" />
          {derived.length > 0 && (
            <ul className="derived" aria-label="Arguments derived from untrusted content">
              {derived.map((derivation) => (
                <li key={derivation.path} data-testid="derived-argument">
                  <Name value={derivation.path} /> derived from {derivation.sources.join(', ')} (untrusted)
                </li>
              ))}
            </ul>
          )}
        </section>
        <section>
          <h5>Policy decision</h5>
          <p>
            <span className={`badge big ${call.outcome.replace(' ', '-')}`} data-testid="outcome">
              {dispositionWords(call.outcome)}
            </span>
          </p>
          <Timeline stages={call.stages} />
          <details className="model-saw">
            <summary>What the model read back</summary>
            <Json value={call.modelSaw} />
          </details>
        </section>
        <section>
          <h5>Observed side effect</h5>
          <p data-testid="side-effect">
            <Breakable text={sideEffect ?? call.sideEffect} />
          </p>
        </section>
      </div>
    </article>
  );
}
