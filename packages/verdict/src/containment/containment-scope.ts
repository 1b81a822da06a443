/** What a kill switch switches off: one capability for everyone, one actor, or one tenant. */
export const ContainmentScope = {
  Capability: 'capability',
  Actor: 'actor',
  Tenant: 'tenant',
} as const;

export type ContainmentScope = (typeof ContainmentScope)[keyof typeof ContainmentScope];

/** Whether `value` names a containment scope. */
export function isContainmentScope(value: unknown): value is ContainmentScope {
  return Object.values(ContainmentScope).includes(value as ContainmentScope);
}
