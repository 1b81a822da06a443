/** What a path did with a proposal, as the lab reports it. */
export const LabOutcome = {
  /** Returned data the actor may not see. */
  Leaked: 'leaked',
  /** Refused. */
  Denied: 'denied',
  /** Returned data the actor may see. */
  Permitted: 'permitted',
} as const;

export type LabOutcome = (typeof LabOutcome)[keyof typeof LabOutcome];

/** Classifies a tool's answer: did it hand over the order with `orderId`, and was the actor entitled to it? */
export function outcomeOf(content: string, orderId: number, actorOwnsOrder: boolean): LabOutcome {
  let handedOver = false;
  try {
    const parsed = JSON.parse(content) as { id?: unknown };
    handedOver = parsed?.id === orderId;
  } catch {
    handedOver = false;
  }
  if (!handedOver) return LabOutcome.Denied;
  return actorOwnsOrder ? LabOutcome.Permitted : LabOutcome.Leaked;
}
