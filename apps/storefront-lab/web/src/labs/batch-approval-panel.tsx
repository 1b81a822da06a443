import { useCallback, useEffect, useState } from 'react';
import { type BatchDecisionInput, type CallView, type LabActor, labApi } from '../api';
import { CallRow } from '../components/call-row';
import { Status } from '../components/status';
import { useAction } from '../use-action';

/** What the model proposes in one turn: three refunds, each needing confirmation. */
const TURN = [
  { orderId: 1002, amountCents: 500 },
  { orderId: 1004, amountCents: 300 },
  { orderId: 1002, amountCents: 200 },
];

type Choice = 'approve' | 'reject' | 'edit';

/**
 * Batch approvals: the model proposes several refunds in one turn; the signed-in approver sees them together and
 * approves, rejects or edits each; the calls then resume. An edited refund is a new proposal that asks again.
 */
export function BatchApprovalPanel({
  actor,
  approvers,
}: {
  actor: LabActor;
  approvers: ReadonlyArray<{ id: string; label: string }>;
}) {
  const [approver, setApprover] = useState(approvers[0].id);
  const [batchId, setBatchId] = useState<string | null>(null);
  const [choices, setChoices] = useState<Record<string, Choice>>({});
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [calls, setCalls] = useState<CallView[]>([]);
  const [answer, setAnswer] = useState<string | null>(null);
  const propose = useAction(labApi.proposeBatch);
  const read = useAction(labApi.readBatch);
  const decide = useAction(labApi.decideBatch);
  const reload = useCallback(() => {
    if (batchId !== null) void read.run(batchId, approver);
  }, [read.run, batchId, approver]);
  useEffect(reload, [reload]);
  const shown = read.data;
  const items = shown?.allowed === true ? shown.items : [];
  const decisions = (): BatchDecisionInput[] =>
    items.map((item) => {
      const choice = choices[item.toolCallId] ?? 'approve';
      if (choice !== 'edit') return { toolCallId: item.toolCallId, decision: choice };
      const amountCents = Number(edits[item.toolCallId] ?? item.arguments.amountCents);
      return { toolCallId: item.toolCallId, decision: 'edit', arguments: { ...item.arguments, amountCents } };
    });
  return (
    <section className="inbox" aria-labelledby="batch-title">
      <h3 id="batch-title">Batch approvals: one turn, several refunds</h3>
      <p className="muted">
        The model proposes three refunds in one turn. Each asks for confirmation and joins the turn&apos;s batch; the
        approver decides them together. An edited refund is a new proposal: it goes through every gate again and asks
        for its own approval.
      </p>
      <div className="controls">
        <button
          type="button"
          id="propose-batch"
          disabled={propose.loading}
          onClick={() =>
            void propose.run({ actor, refunds: TURN }).then((proposed) => {
              if (proposed === undefined) return;
              setBatchId(proposed.batchId);
              setCalls((previous) => [...previous, ...proposed.calls]);
              setAnswer(null);
            })
          }
        >
          Model proposes three refunds in one turn
        </button>
        <label>
          Signed in as
          <select id="batch-approver" value={approver} onChange={(event) => setApprover(event.target.value)}>
            {approvers.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Status
        loading={propose.loading || read.loading || decide.loading}
        error={propose.error ?? read.error ?? decide.error}
      />
      {shown?.allowed === false && (
        <p id="batch-refusal" role="status">
          This approver may not see the batch ({shown.outcome}).
        </p>
      )}
      {batchId !== null && shown?.allowed === true && items.length === 0 && (
        <p className="muted">Nothing in this batch waits for an approval.</p>
      )}
      <ul id="batch-items">
        {items.map((item) => (
          <li key={item.toolCallId} data-batch-item={item.toolCallId}>
            <strong>{item.description ?? item.capability}</strong>
            <span className="muted"> · {item.reason}</span>
            <div className="buttons">
              <label>
                Decision
                <select
                  aria-label={`Decision for ${item.toolCallId}`}
                  value={choices[item.toolCallId] ?? 'approve'}
                  onChange={(event) => setChoices({ ...choices, [item.toolCallId]: event.target.value as Choice })}
                >
                  <option value="approve">Approve</option>
                  <option value="reject">Reject</option>
                  <option value="edit">Edit</option>
                </select>
              </label>
              {(choices[item.toolCallId] ?? 'approve') === 'edit' && (
                <label>
                  Amount (cents)
                  <input
                    inputMode="numeric"
                    aria-label={`Edited amount for ${item.toolCallId}`}
                    value={edits[item.toolCallId] ?? String(item.arguments.amountCents)}
                    onChange={(event) => setEdits({ ...edits, [item.toolCallId]: event.target.value })}
                  />
                </label>
              )}
            </div>
          </li>
        ))}
      </ul>
      <button
        type="button"
        id="decide-batch"
        disabled={items.length === 0 || decide.loading}
        onClick={() =>
          void decide.run(batchId!, decisions(), approver).then((decided) => {
            if (decided === undefined) return;
            setAnswer(`batch ${decided.outcome}`);
            setCalls((previous) => [...previous, ...decided.calls]);
            // A new batch starts undecided: its items are asked afresh.
            setChoices({});
            setEdits({});
            if (decided.nextBatchId !== null) setBatchId(decided.nextBatchId);
            else reload();
          })
        }
      >
        Decide the batch
      </button>
      {answer !== null && (
        <p id="batch-answer" role="status">
          {answer}
        </p>
      )}
      <div id="batch-calls">
        {calls.map((call, index) => (
          <CallRow key={index} call={call} label={`Call ${index + 1}: ${call.toolCallId}`} level={4} />
        ))}
      </div>
    </section>
  );
}
