import { useCallback, useEffect, useState } from 'react';
import refundSource from '../../../../../libs/storefront/src/capabilities/refund.capabilities.ts?raw';
import { type CallView, type PendingApprovalView, labApi } from '../api';
import { ActorPicker, CUSTOMER_72 } from '../components/actor-picker';
import { CallRow } from '../components/call-row';
import { CodeView } from '../components/code-view';
import { Status } from '../components/status';
import { useAction } from '../use-action';
import { BatchApprovalPanel } from './batch-approval-panel';

const APPROVERS = [
  { id: 'customer:72', label: 'Customer 72 at acme (on their phone)' },
  { id: 'customer:91', label: 'Customer 91 at acme (another customer)' },
  { id: 'customer:73', label: 'Customer 73 at globex (another tenant)' },
];

/** Confirmation: propose a refund, approve or reject it in the inbox as a signed-in user, resume, replay. */
export function ConfirmationLab() {
  const [actor, setActor] = useState(CUSTOMER_72);
  const [orderId, setOrderId] = useState('1002');
  const [amount, setAmount] = useState('500');
  const [calls, setCalls] = useState<CallView[]>([]);
  const [proposed, setProposed] = useState<string | null>(null);
  const propose = useAction(labApi.proposeRefund);
  const resume = useAction(labApi.resumeRefund);
  const args = { orderId: Number(orderId), amountCents: Number(amount) };
  return (
    <>
      <p className="lede">
        Refunds move money: the capability requires confirmation. Verdict issues a receipt bound to this actor, order
        version and arguments; another signed-in user decides in the inbox through the guarded approval endpoint; the
        resumed call executes once, changed arguments ask again, a replay is refused.
      </p>
      <form
        className="controls"
        onSubmit={(event) => {
          event.preventDefault();
          void propose.run({ actor, ...args }).then((call) => {
            if (call === undefined) return;
            setProposed(call.toolCallId);
            setCalls((previous) => [...previous, call]);
          });
        }}
      >
        <ActorPicker id="refund" actor={actor} onChange={setActor} />
        <label>
          Order
          <input inputMode="numeric" value={orderId} onChange={(event) => setOrderId(event.target.value)} />
        </label>
        <label>
          Amount (cents)
          <input
            inputMode="numeric"
            id="refund-amount"
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
          />
        </label>
        <button type="submit" id="propose-refund" disabled={propose.loading}>
          Model proposes the refund
        </button>
        <button
          type="button"
          id="resume-refund"
          disabled={proposed === null || resume.loading}
          onClick={() =>
            void resume
              .run(proposed!, args)
              .then((call) => call !== undefined && setCalls((previous) => [...previous, call]))
          }
        >
          Resume the call with these arguments
        </button>
      </form>
      <Status loading={propose.loading || resume.loading} error={propose.error ?? resume.error} />
      <Inbox refreshKey={calls.length} />
      <div className="result-with-code">
        <div id="confirmation-calls">
          {calls.map((call, index) => (
            <CallRow key={index} call={call} label={`Call ${index + 1}: ${call.toolCallId}`} />
          ))}
        </div>
        <aside>
          <CodeView title="The Verdict capability: orders.refund" source={refundSource} from="  @Capability({" />
        </aside>
      </div>
      <BatchApprovalPanel actor={actor} approvers={APPROVERS} />
    </>
  );
}

/** The approval inbox: pending approvals of this session, decided by the signed-in approver. */
function Inbox({ refreshKey }: { refreshKey: number }) {
  const [approver, setApprover] = useState(APPROVERS[0].id);
  const [answer, setAnswer] = useState<string | null>(null);
  const list = useAction(labApi.inbox);
  const decide = useAction(labApi.decide);
  const reload = useCallback(() => void list.run(), [list.run]);
  useEffect(reload, [reload, refreshKey]);
  const pending: PendingApprovalView[] = list.data ?? [];
  return (
    <section className="inbox" aria-labelledby="inbox-title">
      <h3 id="inbox-title">Approval inbox</h3>
      <label>
        Signed in to the inbox as
        <select id="approver" value={approver} onChange={(event) => setApprover(event.target.value)}>
          {APPROVERS.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {candidate.label}
            </option>
          ))}
        </select>
      </label>
      <Status loading={list.loading || decide.loading} error={list.error ?? decide.error} />
      {pending.length === 0 && <p className="muted">Nothing waits for an approval.</p>}
      <ul>
        {pending.map((item) => (
          <li key={item.toolCallId} data-pending={item.toolCallId}>
            <strong>{item.description ?? item.capability}</strong>
            <span className="muted">
              {' '}
              asked by {item.requestedBy} · {item.reason}
            </span>
            <div className="buttons">
              {(['approve', 'reject'] as const).map((verb) => (
                <button
                  key={verb}
                  type="button"
                  className={verb}
                  onClick={() =>
                    void decide.run(item.toolCallId, verb, approver).then((result) => {
                      if (result !== undefined) setAnswer(`${item.toolCallId}: ${result.outcome}`);
                      reload();
                    })
                  }
                >
                  {verb === 'approve' ? 'Approve' : 'Reject'}
                </button>
              ))}
            </div>
          </li>
        ))}
      </ul>
      {answer !== null && (
        <p id="approval-answer" role="status">
          {answer}
        </p>
      )}
    </section>
  );
}
