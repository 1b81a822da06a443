import { TrajectoryScope } from '@verdict/nestjs';
import type { StorefrontActor } from '../authorization/storefront-actor.js';

/**
 * The trajectory scope of {@link customerRecordsExfiltration}: the signed-in customer within their tenant,
 * across every conversation. Exports persist beyond a chat, so a per-conversation scope would let an
 * attacker read and export in one chat and upload "the latest export" from the next.
 */
export const customerRecordsScope = TrajectoryScope.actor((actor: StorefrontActor) => actor.customerId);
