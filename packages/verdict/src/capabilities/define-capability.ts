import type { ActionContext, AnyActionContext } from '../context/action-context.js';
import type { CapabilityDefinition, CapabilityExecutor } from './capability-definition.js';
import type { CapabilityOptions } from './capability-options.interface.js';

/**
 * The programmatic twin of `@Capability`: the same definition, for dynamic registration through
 * `VerdictModule.forRoot({ capabilities })`.
 *
 * `TArgs` is inferred from the schema and `TTarget` from the resolver, so the executor's `action` is typed.
 *
 * @example
 * const view = defineCapability({ name: 'orders.view', ... }, (action) => action.target);
 * const cancel = defineCapability(cancelOptions, (action) => orders.cancel(action.target), { host: orders });
 */
export function defineCapability<TArgs, TTarget, TOutput, TContext extends AnyActionContext = ActionContext>(
  options: CapabilityOptions<TArgs, TTarget, TContext>,
  executor: CapabilityExecutor<TArgs, TTarget, TOutput, TContext> | null,
  {
    host = null,
    declaredAt = `defineCapability(${JSON.stringify(options.name)})`,
  }: { host?: unknown; declaredAt?: string } = {},
): CapabilityDefinition<TArgs, TTarget, TOutput, TContext> {
  return Object.freeze({
    ...options,
    // Only a left-out list is `[]`: anything else that is no array (`null` from an untyped caller) is kept for the
    // boot to refuse (`assertWellFormed`).
    authorizeFields:
      options.authorizeFields === undefined
        ? Object.freeze([])
        : Array.isArray(options.authorizeFields)
          ? Object.freeze([...options.authorizeFields])
          : options.authorizeFields,
    executor,
    host,
    declaredAt,
  });
}
