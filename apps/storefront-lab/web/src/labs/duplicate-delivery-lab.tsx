import { useState } from 'react';
import supportSource from '../../../../../libs/storefront/src/capabilities/support.capabilities.ts?raw';
import { labApi } from '../api';
import { ActorPicker, CUSTOMER_72 } from '../components/actor-picker';
import { CodeView } from '../components/code-view';
import { RunView } from '../components/run-view';
import { Status } from '../components/status';
import { useAction } from '../use-action';

/** Duplicate delivery: a new tool-call id is not a new operation; one escalation, one ticket. */
export function DuplicateDeliveryLab() {
  const [actor, setActor] = useState(CUSTOMER_72);
  const [orderId, setOrderId] = useState('1002');
  const { data, loading, error, run } = useAction(labApi.duplicateDelivery);
  return (
    <>
      <p className="lede">
        The transport delivers the same escalation twice, under two tool-call ids. The capability runs at most once per
        operation: the execution claim is keyed on what the call does, not on the transport's id.
      </p>
      <form
        className="controls"
        onSubmit={(event) => {
          event.preventDefault();
          void run({ actor, orderId: Number(orderId) });
        }}
      >
        <ActorPicker id="dup" actor={actor} onChange={setActor} />
        <label>
          Order
          <input inputMode="numeric" value={orderId} onChange={(event) => setOrderId(event.target.value)} />
        </label>
        <button type="submit" id="run-duplicate-delivery" disabled={loading}>
          Deliver the escalation twice
        </button>
      </form>
      <Status loading={loading} error={error} />
      <div className="result-with-code">
        <div>{data !== undefined && <RunView run={data} />}</div>
        <aside>
          <CodeView title="The Verdict capability: support.escalate" source={supportSource} from="  @Capability({" />
        </aside>
      </div>
    </>
  );
}
