import type { LabProblem } from '../use-action';

const ENDPOINT = { approval: 'The guarded approval endpoint', review: 'The guarded review endpoint' } as const;

/**
 * The run button's companion: a spinner while the request is in flight; a refusal by a guarded endpoint as
 * Verdict refusing someone (an expected outcome, with the rule that refused); any other failure as an error.
 */
export function Status({ loading, error }: { loading: boolean; error?: LabProblem }) {
  if (loading)
    return (
      <p className="status loading" role="status">
        <span className="spinner" aria-hidden="true" /> Running…
      </p>
    );
  if (error?.refusal)
    return (
      <div className="status refusal" role="status" data-testid="refusal" data-status={error.refusal.status}>
        <p>
          <span className="badge deny">refused</span> <strong>{ENDPOINT[error.refusal.endpoint]} refused</strong>{' '}
          {error.refusal.who} <span className="muted">({error.refusal.status})</span>
        </p>
        <p className="why">{error.refusal.why}</p>
      </div>
    );
  if (error !== undefined)
    return (
      <p className="status error" role="alert">
        Something went wrong: {error.message}
      </p>
    );
  return null;
}
