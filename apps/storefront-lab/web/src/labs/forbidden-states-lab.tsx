import { useState } from 'react';
import modelSource from '../../../../../libs/storefront/src/records/customer-records-exfiltration.ts?raw';
import { labApi } from '../api';
import { ActorPicker, CUSTOMER_72 } from '../components/actor-picker';
import { CallRow } from '../components/call-row';
import { CodeView } from '../components/code-view';
import { Json } from '../components/json';
import { Status } from '../components/status';
import { useAction } from '../use-action';

/** Forbidden states: the exfiltration chain, with the folded trajectory state after each step. */
export function ForbiddenStatesLab() {
  const [actor, setActor] = useState(CUSTOMER_72);
  const [externalHost, setHost] = useState('files.example.net');
  const [recipient, setRecipient] = useState('collector@example.net');
  const { data, loading, error, run } = useAction(labApi.forbiddenStates);
  return (
    <>
      <p className="lede">
        Read the records, export them, upload, send a link: each call is permitted on its own. Verdict folds their
        effects into a state per customer and refuses the step that would make a forbidden state true.
      </p>
      <form
        className="controls"
        onSubmit={(event) => {
          event.preventDefault();
          void run({ actor, externalHost, recipient });
        }}
      >
        <ActorPicker id="fs" actor={actor} onChange={setActor} />
        <label>
          Injected upload host
          <input value={externalHost} onChange={(event) => setHost(event.target.value)} />
        </label>
        <label>
          Injected recipient
          <input value={recipient} onChange={(event) => setRecipient(event.target.value)} />
        </label>
        <button type="submit" id="run-forbidden-states" disabled={loading}>
          Run the chain
        </button>
      </form>
      <Status loading={loading} error={error} />
      <div className="result-with-code">
        <ol className="steps" id="chain-steps">
          {data?.map((step, index) => (
            <li key={index}>
              <CallRow call={step.call} label={`Step ${index + 1}: ${step.call.proposal.tool}`} />
              <div className="state">
                <h4 className="column-heading">Folded state after step {index + 1}</h4>
                <Json value={step.state} />
              </div>
            </li>
          ))}
        </ol>
        <aside>
          <CodeView title="The state model" source={modelSource} from="export const customerRecordsExfiltration" />
        </aside>
      </div>
    </>
  );
}
