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
 * `level` is the label's heading level (the four columns' headings are one below it): 3 right under the lab's
 * subtitle, 4 under a section's own heading, so heading levels never skip one.
 */
export function CallRow({
  call,
  label,
  sideEffect,
  level = 3,
}: {
  call: CallView;
  label?: string;
  sideEffect?: string;
  level?: 3 | 4;
}) {
  const Label = level === 3 ? 'h3' : 'h4';
  const Column = level === 3 ? 'h4' : 'h5';
  const derived = call.derivedArguments ?? [];
  const derivedValues = derived.map(({ path }) => String(call.proposal.arguments[path] ?? ''));
  return (
    <article className="call" data-outcome={call.outcome} data-tool-call={call.toolCallId}>
      {label !== undefined && <Label className="call-label">{label}</Label>}
      <div className="columns">
        <section>
          <Column className="column-heading">Untrusted input</Column>
          <p className="untrusted">
            <Highlighted text={call.untrustedInput} needles={derivedValues} />
          </p>
        </section>
        <section>
          <Column className="column-heading">Model proposal</Column>
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
          <Column className="column-heading">Policy decision</Column>
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
          <Column className="column-heading">Observed side effect</Column>
          <p data-testid="side-effect">
            <Breakable text={sideEffect ?? call.sideEffect} />
          </p>
        </section>
      </div>
    </article>
  );
}
