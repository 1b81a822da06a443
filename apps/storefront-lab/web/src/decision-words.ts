import type { StageView } from './api';

/** A pipeline stage's label, one per stage: the forbidden-state check is recorded at `execution` but is its own step. */
const STAGES: Readonly<Record<string, string>> = {
  containment: 'Kill switches',
  proposal: 'Proposal',
  provenance: 'Provenance',
  approval: 'Confirmation',
  review: 'Staff review',
  target_refresh: 'Target refresh',
  execution: 'Execution check',
  forbidden_states: 'Forbidden states',
  rate_limit: 'Budget',
  execution_claim: 'At most once',
};

/** What a disposition means, in words (the code stays in the page's data attributes). */
const DISPOSITIONS: Readonly<Record<string, string>> = {
  permit: 'allowed',
  deny: 'denied',
  require_confirmation: 'needs confirmation',
  require_review: 'parked for review',
  throttle: 'over budget',
  would_deny: 'would be denied (shadow mode: it ran)',
  would_confirm: 'would need confirmation (shadow mode: it ran)',
};

/** Internal codes the evidence records, in words: review phases, release reasons and other snake_case reasons. */
const CODES: Readonly<Record<string, string>> = {
  review_park: 'parked for staff review',
  review_decision: 'staff decision',
  review_requeue: 're-queued by an operator',
  review_dispatch: 'handed to the worker',
  review_execution: 'run by the worker',
  proposal_validation: 'receipt checked at proposal',
  execution_validation: 'receipt checked before execution',
  consumption: 'receipt used',
  decision: 'approver decision',
  released: 'released',
  route_not_registered: 'no release route is registered for this destination',
  route_permits_nothing: 'the release route permits nothing here',
  trust_not_allowed: "the destination's trust zone is not allowed",
  class_not_allowed: 'this data class may not go there',
  transform_expanded: 'the transform added data',
  detector_fired: 'a detector found data that may not go there',
  placeholders_restored: 'placeholders restored',
  own_request: 'the requester cannot decide their own request',
  invalid_state: 'already decided',
  not_found: 'not found',
};

/** Whether a record is the forbidden-state check (recorded at stage `execution`, told apart by its reason). */
function isForbiddenStateCheck(stage: StageView): boolean {
  return stage.stage === 'execution' && /^(trajectory:|forbidden state:)/.test(stage.reason);
}

/** The step a record belongs to, as an id (`forbidden_states` for the forbidden-state check). */
export function stepOf(stage: StageView): string {
  return isForbiddenStateCheck(stage) ? 'forbidden_states' : stage.stage;
}

/** The label of a record's step. */
export function stageLabel(stage: StageView): string {
  const step = stepOf(stage);
  return STAGES[step] ?? words(step);
}

/** A disposition in words. */
export function dispositionWords(disposition: string): string {
  return DISPOSITIONS[disposition] ?? words(disposition);
}

/** A code in words (`review_park` → "parked for staff review"; an unknown `snake_case` → "snake case"). */
export function codeWords(code: string): string {
  const [head, detail] = code.split(':', 2);
  if (CODES[head] !== undefined) return detail === undefined ? CODES[head] : `${CODES[head]} (${detail})`;
  return words(code);
}

/**
 * A record's reason in words, or `null` when it only repeats the disposition ("permit permitted"). Codes inside
 * it are put in words: `forbidden state: customer_records_exfiltrated` → "reaches the forbidden state “customer
 * records exfiltrated”".
 */
export function reasonWords(stage: StageView): string | null {
  const reason = stage.reason.trim();
  if (reason === '' || reason === 'permitted' || reason === stage.disposition) return null;
  if (reason === 'trajectory: no forbidden state') return 'no forbidden state reached';
  if (reason === 'trajectory: no modelled effect') return 'no modelled effect';
  const forbidden = /^forbidden state: (.+)$/.exec(reason);
  if (forbidden !== null) return `reaches the forbidden state “${words(forbidden[1])}”`;
  return reason.replace(/\b[a-z]+(?:_[a-z]+)+\b/g, (code) => codeWords(code));
}

function words(code: string): string {
  return code.replace(/_/g, ' ');
}
