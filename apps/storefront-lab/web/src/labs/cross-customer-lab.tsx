import { useState } from 'react';
import manualSource from '../../../../../libs/storefront/src/tools/manually-secured-lookup-order.tool.ts?raw';
import capabilitySource from '../../../../../libs/storefront/src/capabilities/storefront.capabilities.ts?raw';
import { labApi } from '../api';
import { ActorPicker, CUSTOMER_72 } from '../components/actor-picker';
import { CodeView } from '../components/code-view';
import { Comparison } from '../components/comparison';
import { Status } from '../components/status';
import { useAction } from '../use-action';

/** Cross-customer: one proposed lookup through the naive, the hand-secured and the Verdict tool. */
export function CrossCustomerLab() {
  const [actor, setActor] = useState(CUSTOMER_72);
  const [request, setRequest] = useState('Show me order 1001, please.');
  const [orderId, setOrderId] = useState('1001');
  const { data, loading, error, run } = useAction(labApi.crossCustomer);
  return (
    <>
      <p className="lede">
        A customer asks the assistant for an order; the model proposes <code>lookup_order</code>. The same proposal goes
        through a naive tool, a tool secured by hand with a scoped query, and the Verdict bound tool.
      </p>
      <form
        className="controls"
        onSubmit={(event) => {
          event.preventDefault();
          void run({ actor, request, orderId: Number(orderId) });
        }}
      >
        <ActorPicker id="xc" actor={actor} onChange={setActor} />
        <label>
          Customer's request (untrusted)
          <input value={request} onChange={(event) => setRequest(event.target.value)} />
        </label>
        <label>
          Proposed <code>orderId</code>
          <input inputMode="numeric" value={orderId} onChange={(event) => setOrderId(event.target.value)} />
        </label>
        <button type="submit" disabled={loading} id="run-cross-customer">
          Run the proposal
        </button>
      </form>
      <Status loading={loading} error={error} />
      <div className="result-with-code">
        <div>{data !== undefined && <Comparison result={data} titled />}</div>
        <aside>
          <CodeView
            title="The Verdict capability: orders.view"
            source={capabilitySource}
            from="@Capability({"
            to="/**"
          />
          <CodeView title="The hand-secured tool" source={manualSource} from="export function" />
        </aside>
      </div>
    </>
  );
}
