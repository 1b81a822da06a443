import { useState } from 'react';
import policySource from '../../../src/releases/lab-release-policies.ts?raw';
import { type ReleaseView, labApi } from '../api';
import { ActorPicker, CUSTOMER_72 } from '../components/actor-picker';
import { CodeView } from '../components/code-view';
import { Hash } from '../components/hash';
import { codeWords } from '../decision-words';
import { Json } from '../components/json';
import { Status } from '../components/status';
import { useAction } from '../use-action';

/** Destination-bound release: the profile before and after, per destination, redactions highlighted. */
export function ReleaseLab() {
  const [actor, setActor] = useState(CUSTOMER_72);
  const { data, loading, error, run } = useAction(labApi.release);
  return (
    <>
      <p className="lede">
        The application hands the customer's profile to a model connection. A provider name is not a trust boundary:
        only the route to <code>ollama@local-machine</code> is registered, so the same connection in a remote zone gets
        nothing, and the e-mail is redacted even where the release is permitted.
      </p>
      <div className="controls">
        <ActorPicker id="release" actor={actor} onChange={setActor} />
        <button type="button" id="run-release" disabled={loading} onClick={() => void run({ actor })}>
          Release the profile
        </button>
      </div>
      <Status loading={loading} error={error} />
      <div className="result-with-code">
        <div id="release-results">
          {data?.releases.map((release) => (
            <Release key={release.destination} release={release} />
          ))}
        </div>
        <aside>
          <CodeView title="The registered release route" source={policySource} from="@ReleasePolicies()" />
        </aside>
      </div>
    </>
  );
}

function Release({ release }: { release: ReleaseView }) {
  return (
    <article className="release" data-destination={release.destination} data-outcome={release.outcome}>
      <h3>
        <code>{release.destination}</code> <span className={`badge big ${release.outcome}`}>{release.outcome}</span>{' '}
        <span className="muted">{codeWords(release.reason)}</span>
      </h3>
      <div className="before-after">
        <section>
          <h4 className="column-heading">Before (what the application holds)</h4>
          <Json value={release.before} />
        </section>
        <section>
          <h4 className="column-heading">After (what the connection gets)</h4>
          <pre className="json" data-testid="payload" tabIndex={0} aria-label="released payload">
            {highlight(JSON.stringify(release.payload, null, 2))}
          </pre>
        </section>
      </div>
      <details>
        <summary>Release record (names, fingerprints and counts only)</summary>
        <dl className="evidence">
          {Object.entries(release.evidence).map(([key, value]) => (
            <div key={key}>
              <dt>{key}</dt>
              <dd>{typeof value === 'string' ? <Hash value={value} /> : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      </details>
    </article>
  );
}

/** Marks every `[REDACTED]` in the payload. */
function highlight(text: string) {
  return text.split(/(\[REDACTED\])/).map((part, index) =>
    part === '[REDACTED]' ? (
      <mark key={index} className="redacted">
        {part}
      </mark>
    ) : (
      part
    ),
  );
}
