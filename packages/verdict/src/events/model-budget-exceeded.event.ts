/**
 * Emitted (with `@nestjs/event-emitter`) when a model budget stopped an agent run before a model call
 * (`ModelBudgetExceededError`): the facts of the refusal, fingerprints only — never the messages, the actor or the
 * conversation id.
 *
 * @example \@OnEvent(ModelBudgetExceeded.event) alert(event: ModelBudgetExceeded) { ... }
 */
export class ModelBudgetExceeded {
  static readonly event = 'verdict.model_budget_exceeded';

  constructor(
    /** The budget's name. */
    readonly budget: string,
    /** `tokens` or `cost`. */
    readonly measure: string,
    /** `actor`, `tenant` or `conversation`. */
    readonly per: string,
    /** `sha256(JCS({model_budget, measure, per, window_seconds, binding}))`: the window's bucket in the budget store. */
    readonly bucketFingerprint: string,
    /** The model the call was for, as LangChain names it (`null` when it names none). */
    readonly model: string | null,
    readonly limit: number,
    /** What the call would have reserved, in the budget's measure. */
    readonly requested: number,
    /** `sha256(actorKey(actor))`, `null` when the actor has no usable key. */
    readonly actorFingerprint: string | null,
    /** `sha256(tenant)`, `null` for a context without a tenant. */
    readonly tenantFingerprint: string | null,
    /** When the window ends. */
    readonly resetAt: Date,
    readonly occurredAt: Date,
  ) {}
}
