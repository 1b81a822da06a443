/**
 * Marks what a gate or target-policy factory returns as typed by the capability it is written in. Inline in
 * `@Capability({...})` or `defineCapability({...})`, TypeScript infers a generic call that returns a callable
 * type only after the call around it (ADR 0018): so `atMostOnce({ key: (envelope, order) => ... })` sees the
 * schema's arguments and the resolver's target without naming them.
 *
 * The signature cannot be called (its parameters are `never`) and the object is not a function at run time:
 * it exists only for that inference. Never call a policy.
 */
export interface InferredFromCapability {
  (...inferredFromTheCapability: never): never;
}

/** The one place a factory's result is given the {@link InferredFromCapability} mark. */
export function inferredFromCapability<TPolicy extends object>(policy: TPolicy): TPolicy & InferredFromCapability {
  return policy as TPolicy & InferredFromCapability;
}
