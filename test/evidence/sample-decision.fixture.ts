import { randomUUID } from 'node:crypto';
import { type DecisionRecord, decisionRecord } from '@verdict/nestjs';

/** A decision record with fresh ids: a permitted execution of `orders.cancel`, recorded at a fixed instant. */
export function sampleDecision(): DecisionRecord {
  return decisionRecord(
    {
      id: randomUUID(),
      correlationId: randomUUID(),
      sequence: 0,
      capability: 'orders.cancel',
      toolKind: 'bound',
      stage: 'execution',
      disposition: 'permit',
      reason: 'authorized',
      recordedAt: new Date('2024-02-29T23:59:59.987Z'),
    },
    { identityMatch: true },
  );
}
