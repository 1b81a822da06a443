import { useState } from 'react';
import shipmentSource from '../../../../../libs/storefront/src/capabilities/shipment.capabilities.ts?raw';
import { labApi } from '../api';
import { ActorPicker, CUSTOMER_72 } from '../components/actor-picker';
import { CodeView } from '../components/code-view';
import { RunView } from '../components/run-view';
import { Status } from '../components/status';
import { useAction } from '../use-action';

/** Budget: a permission is not a budget; the third refresh in the hour is throttled. */
export function BudgetLab() {
  const [actor, setActor] = useState(CUSTOMER_72);
  const [orderId, setOrderId] = useState('1002');
  const [count, setCount] = useState('3');
  const { data, loading, error, run } = useAction(labApi.budget);
  return (
    <>
      <p className="lede">
        Every refresh is permitted on its own: the customer owns the order. The carrier charges per request, so the
        capability has a durable budget of two per hour per customer. Run it again: the budget stays spent until you
        reset the session.
      </p>
      <form
        className="controls"
        onSubmit={(event) => {
          event.preventDefault();
          void run({ actor, orderId: Number(orderId), count: Number(count) });
        }}
      >
        <ActorPicker id="budget" actor={actor} onChange={setActor} />
        <label>
          Order
          <input inputMode="numeric" value={orderId} onChange={(event) => setOrderId(event.target.value)} />
        </label>
        <label>
          Refreshes
          <input inputMode="numeric" value={count} onChange={(event) => setCount(event.target.value)} />
        </label>
        <button type="submit" id="run-budget" disabled={loading}>
          Ask for the shipment
        </button>
      </form>
      <Status loading={loading} error={error} />
      <div className="result-with-code">
        <div>{data !== undefined && <RunView run={data} />}</div>
        <aside>
          <CodeView title="The Verdict capability: shipments.refresh" source={shipmentSource} from="  @Capability({" />
        </aside>
      </div>
    </>
  );
}
