import { useCallback, useEffect, useState } from 'react';
import staffRefundSource from '../../../src/review-lane/staff-refund.capabilities.ts?raw';
import { type CallView, type ReviewAnswer, type ReviewItemView, labApi } from '../api';
import { ActorPicker, CUSTOMER_72 } from '../components/actor-picker';
import { CallRow } from '../components/call-row';
import { CodeView } from '../components/code-view';
import { Status } from '../components/status';
import { codeWords } from '../decision-words';
import { useAction } from '../use-action';

const REVIEWERS = [
  { id: 'staff:ana', label: 'Ana, staff at acme' },
  { id: 'staff:gus', label: 'Gus, staff at globex (another tenant)' },
  { id: 'customer:72', label: 'Customer 72 at acme (the requester)' },
  { id: 'customer:91', label: 'Customer 91 at acme (not staff)' },
];

/** Who wrote a review-stage record, by its tool kind. */
const RECORDED_BY: Readonly<Record<string, string>> = {
  service: 'Verdict',
  reviewer: 'the reviewer',
  deferred: 'the worker',
};

/** Review lane: a large refund is parked, staff approve or reject it, the worker runs it once. */
export function ReviewLaneLab() {
  const [actor, setActor] = useState(CUSTOMER_72);
  const [orderId, setOrderId] = useState('1002');
  const [amount, setAmount] = useState('25000');
  const [calls, setCalls] = useState<CallView[]>([]);
  // What a review caused, credited to the call the item was parked from (never to the next call).
  const [caused, setCaused] = useState<Readonly<Record<string, string>>>({});
  const propose = useAction(labApi.proposeStaffRefund);
  const credit = (answer: ReviewAnswer) => {
    const toolCallId = answer.item?.toolCallId;
    if (toolCallId === null || toolCallId === undefined) return;
    const by = answer.outcome === 'approved' ? 'by the worker, after staff approved' : `staff ${answer.outcome} it`;
    setCaused((previous) => ({ ...previous, [toolCallId]: `${answer.sideEffect} (${by})` }));
  };
  return (
    <>
      <p className="lede">
        A refund above 10000 cents is not the customer's to confirm: Verdict parks the exact proposal as a review item (
        <code>require_review</code>). A staff member of the order's tenant — never the requester — approves or rejects
        it through the guarded review endpoint; on approval the worker re-runs the whole pipeline as the customer
        against a fresh order and refunds at most once.
      </p>
      <form
        className="controls"
        onSubmit={(event) => {
          event.preventDefault();
          void propose
            .run({ actor, orderId: Number(orderId), amountCents: Number(amount) })
            .then((call) => call !== undefined && setCalls((previous) => [...previous, call]));
        }}
      >
        <ActorPicker id="review" actor={actor} onChange={setActor} />
        <label>
          Order
          <input inputMode="numeric" value={orderId} onChange={(event) => setOrderId(event.target.value)} />
        </label>
        <label>
          Amount (cents)
          <input
            inputMode="numeric"
            id="staff-refund-amount"
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
          />
        </label>
        <button type="submit" id="propose-staff-refund" disabled={propose.loading}>
          Model proposes the refund
        </button>
      </form>
      <Status loading={propose.loading} error={propose.error} />
      <ReviewQueue refreshKey={calls.length} onDecided={credit} />
      <div className="result-with-code">
        <div id="review-calls">
          {calls.map((call, index) => (
            <CallRow
              key={index}
              call={call}
              label={`Call ${index + 1}: ${call.toolCallId}`}
              sideEffect={caused[call.toolCallId]}
            />
          ))}
        </div>
        <aside>
          <CodeView
            title="The Verdict capability: orders.staff_refund"
            source={staffRefundSource}
            from="  @Capability({"
          />
        </aside>
      </div>
    </>
  );
}

/** The staff review queue: every item of the session with its state; pending ones can be decided. */
function ReviewQueue({ refreshKey, onDecided }: { refreshKey: number; onDecided: (answer: ReviewAnswer) => void }) {
  const [reviewer, setReviewer] = useState(REVIEWERS[0].id);
  const [answer, setAnswer] = useState<string | null>(null);
  const list = useAction(labApi.reviews);
  const decide = useAction(labApi.review);
  const reload = useCallback(() => void list.run(), [list.run]);
  useEffect(reload, [reload, refreshKey]);
  const items: ReviewItemView[] = list.data ?? [];
  return (
    <section className="inbox" aria-labelledby="review-queue-title">
      <h3 id="review-queue-title">Staff review queue</h3>
      <label>
        Signed in to the review queue as
        <select id="reviewer" value={reviewer} onChange={(event) => setReviewer(event.target.value)}>
          {REVIEWERS.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              {candidate.label}
            </option>
          ))}
        </select>
      </label>
      <Status loading={list.loading || decide.loading} error={list.error ?? decide.error} />
      {items.length === 0 && <p className="muted">No review items yet.</p>}
      <ul>
        {items.map((item) => (
          <li key={item.itemId} data-review-item={item.itemId} data-status={item.status}>
            <strong>{item.description ?? item.capability}</strong>{' '}
            <span className={`badge ${item.status}`} data-testid="review-status">
              {item.status}
            </span>
            <span className="muted">
              {' '}
              · {item.reason}
              {item.decidedBy !== null && ` · decided by ${item.decidedBy}`}
            </span>
            <ol className="review-history" aria-label="Review-stage records">
              {item.history.map((record, index) => (
                <li key={index} data-phase={record.phase}>
                  {codeWords(record.phase)}: {codeWords(record.outcome)}{' '}
                  <span className="muted">({RECORDED_BY[record.toolKind] ?? record.toolKind})</span>
                </li>
              ))}
            </ol>
            {item.status === 'pending' && (
              <div className="buttons">
                {(['approve', 'reject'] as const).map((verb) => (
                  <button
                    key={verb}
                    type="button"
                    className={verb}
                    onClick={() =>
                      void decide.run(item.itemId, verb, reviewer).then((result) => {
                        if (result !== undefined) {
                          setAnswer(`${result.outcome}: ${result.item?.status ?? 'no item'} — ${result.sideEffect}`);
                          onDecided(result);
                        }
                        reload();
                      })
                    }
                  >
                    {verb === 'approve' ? 'Approve' : 'Reject'}
                  </button>
                ))}
              </div>
            )}
          </li>
        ))}
      </ul>
      {answer !== null && (
        <p id="review-answer" role="status">
          {answer}
        </p>
      )}
    </section>
  );
}
