import { useEffect, useState } from 'react';
import { type ClaimRow, labApi } from '../api';
import { CUSTOMER_72 } from '../components/actor-picker';
import { CallRow } from '../components/call-row';
import { CopyButton } from '../components/copy-button';
import { Status } from '../components/status';
import { useAction } from '../use-action';

const COLUMNS = ['id', 'capability', 'policy', 'status', 'attempt', 'claimed_at', 'updated_at'] as const;
const UNRESOLVED = new Set(['claimed', 'indeterminate']);

/** The claims panel: this session's execution claims in the columns of the operator CLI, and `claims resolve`. */
export function ClaimsLab() {
  const { data, loading, error, run } = useAction(labApi.claims);
  const label = useAction(labApi.sendLabel);
  const [answer, setAnswer] = useState<string | null>(null);
  const session = useAction(labApi.session);
  useEffect(() => void run(), [run]);
  useEffect(() => void session.run(), [session.run]);
  const cli = session.data?.cli;
  return (
    <>
      <p className="lede">
        What an operator sees with <code>npm run verdict -- claims list</code> on your session's database (it lists the
        unresolved claims; this panel shows every claim of your session, resolved ones included), and what{' '}
        <code>verdict claims resolve &lt;id&gt; completed|retryable --by --reason [--force]</code> does. Book a shipping
        label: the lab's carrier times out after taking the request, so nobody knows whether the label exists and the
        claim stays <code>indeterminate</code> — every retry is denied until an operator says what happened.
      </p>
      {cli !== undefined && (
        <div className="cli" id="cli-command">
          {cli === null ? (
            <p className="muted">
              This lab session is in memory (the lab was started without a sessions directory): no other process can
              open it, so the CLI cannot see it. <code>npm start</code> keeps each session in{' '}
              <code>.lab-data/sessions</code>.
            </p>
          ) : (
            <>
              <p>The same list in a terminal, from the repository root (your browser session's own database):</p>
              <p className="command">
                <code data-testid="cli-command">{cli.command}</code>
                <CopyButton value={cli.command} label="the command" />
              </p>
            </>
          )}
        </div>
      )}
      <div className="controls">
        <button type="button" id="reload-claims" onClick={() => void run()}>
          Reload
        </button>
        <button
          type="button"
          id="send-label"
          disabled={label.loading}
          onClick={() => void label.run({ actor: CUSTOMER_72, orderId: 1002 }).then(() => run())}
        >
          Book the label for order 1002
        </button>
      </div>
      <Status loading={loading || label.loading} error={error ?? label.error} />
      {label.data !== undefined && <CallRow call={label.data} label="Last label call" />}
      {data !== undefined && data.length === 0 && <p className="muted">No execution claims in this session yet.</p>}
      {data !== undefined && data.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Execution claims">
          <table id="claims">
            <thead>
              <tr>
                {COLUMNS.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.map((claim) => (
                <tr key={claim.id} data-status={claim.status}>
                  {COLUMNS.map((column) => (
                    <td key={column}>{String(claim[column])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data?.some((claim) => UNRESOLVED.has(claim.status)) && (
        <ResolveForm
          claims={data.filter((claim) => UNRESOLVED.has(claim.status))}
          onResolved={(text) => {
            setAnswer(text);
            void run();
          }}
        />
      )}
      {answer !== null && (
        <p id="resolve-answer" role="status">
          {answer}
        </p>
      )}
    </>
  );
}

/** `verdict claims resolve`, as a form: the claim, completed or retryable, who, why, and --force. */
function ResolveForm({ claims, onResolved }: { claims: readonly ClaimRow[]; onResolved: (answer: string) => void }) {
  const [claimId, setClaimId] = useState(claims[0].id);
  const [choice, setChoice] = useState<'completed' | 'retryable'>('retryable');
  const [by, setBy] = useState('ops:ana');
  const [reason, setReason] = useState('checked the carrier portal: no label was booked');
  const [force, setForce] = useState(false);
  const resolve = useAction(labApi.resolveClaim);
  const selected = claims.some((claim) => claim.id === claimId) ? claimId : claims[0].id;
  return (
    <form
      className="controls"
      aria-label="Resolve a claim"
      onSubmit={(event) => {
        event.preventDefault();
        void resolve.run(selected, { resolution: choice, by, reason, force }).then((result) => {
          if (result === undefined) return;
          onResolved(
            result.outcome === 'resolved'
              ? `claim ${selected.slice(0, 8)}…: ${result.from} -> ${result.status} (by ${by})`
              : `${result.outcome}: the claim is ${result.status}`,
          );
        });
      }}
    >
      <label>
        Claim
        <select id="resolve-claim" value={selected} onChange={(event) => setClaimId(event.target.value)}>
          {claims.map((claim) => (
            <option key={claim.id} value={claim.id}>
              {claim.id.slice(0, 8)}… {claim.capability} ({claim.status})
            </option>
          ))}
        </select>
      </label>
      <label>
        Resolution
        <select
          id="resolve-choice"
          value={choice}
          onChange={(event) => setChoice(event.target.value as 'completed' | 'retryable')}
        >
          <option value="retryable">retryable (the effect did not happen)</option>
          <option value="completed">completed (the effect happened)</option>
        </select>
      </label>
      <label>
        --by
        <input id="resolve-by" value={by} onChange={(event) => setBy(event.target.value)} />
      </label>
      <label>
        --reason
        <input id="resolve-reason" value={reason} onChange={(event) => setReason(event.target.value)} />
      </label>
      <label className="inline">
        <input type="checkbox" checked={force} onChange={(event) => setForce(event.target.checked)} /> --force
      </label>
      <button type="submit" id="resolve-submit" disabled={resolve.loading}>
        Resolve
      </button>
      <Status loading={resolve.loading} error={resolve.error} />
    </form>
  );
}
