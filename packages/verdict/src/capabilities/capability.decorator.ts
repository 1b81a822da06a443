import { DiscoveryService } from '@nestjs/core';
import type { ActionContext, AnyActionContext } from '../context/action-context.js';
import type { CapabilityExecutor } from './capability-definition.js';
import type { CapabilityOptions } from './capability-options.interface.js';

/**
 * The typed face of {@link Capability}: `TArgs` is inferred from `arguments` (a zod schema's `z.infer`, a
 * DTO class's instance type), `TTarget` from `resolveTarget` and `executionTarget`, and `TContext` from the
 * resolvers or gates that name one (else the registered {@link ActionContext}). The decorated method must
 * accept the `AuthorizedAction<TArgs, TTarget>` that the pipeline hands over: a parameter of another
 * argument or target type is a compile error.
 */
export interface CapabilityDecorator {
  <TArgs, TTarget, TContext extends AnyActionContext = ActionContext>(
    options: CapabilityOptions<TArgs, TTarget, TContext>,
  ): <TExecutor extends CapabilityExecutor<TArgs, TTarget, unknown, TContext>>(
    prototype: object,
    method: string | symbol,
    descriptor: TypedPropertyDescriptor<TExecutor>,
  ) => void;
  /** The metadata key the explorer discovers decorated methods by. */
  readonly KEY: string;
}

/** The discoverable decorator behind {@link Capability}, for the explorer (the same object, untyped options). */
export const discoverableCapability = DiscoveryService.createDecorator<CapabilityOptions>();

/**
 * Declares the decorated provider method as the executor of a capability. Discovered at boot; the
 * provider must be registered in a module. See {@link CapabilityOptions}.
 *
 * @example
 * \@Capability({ name: 'orders.view', ..., arguments: z.object({ orderId: z.number() }), resolveTarget: fromProposal(...) })
 * view(action: AuthorizedAction<{ orderId: number }, Order>) { ... } // AuthorizedAction<{ orderId: string }, Order> does not compile
 */
export const Capability: CapabilityDecorator = discoverableCapability;
