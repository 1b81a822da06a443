import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { MAX_ATTRIBUTION_LENGTH } from '../shared/is-attribution.js';
import { isStorableText } from '../shared/storable-text.js';

/**
 * The longest tenant a review item holds: its `tenant` column is `varchar(255)` on every engine, as every attribution
 * column is ({@link MAX_ATTRIBUTION_LENGTH}). A longer one is refused before anything is parked, alike everywhere (it
 * would be parked on SQLite and in memory, and fail with a raw `QueryFailedError` on PostgreSQL and MariaDB).
 */
export const MAX_REVIEW_TENANT_LENGTH = MAX_ATTRIBUTION_LENGTH;

/**
 * Throws `VerdictConfigurationError` when the requester's `tenant` is longer than {@link MAX_REVIEW_TENANT_LENGTH},
 * or holds U+0000 or a lone surrogate (`isStorableText`, the rule of every identifier from outside, ADR 0186): the
 * action context came from the application, and no review item could hold it on every engine (PostgreSQL refuses
 * U+0000 with a raw `QueryFailedError`, after the run's evidence was written).
 * @throws VerdictConfigurationError
 */
export function assertReviewItemTenant(capability: string, tenant: unknown): void {
  if (typeof tenant !== 'string') return;
  if (tenant.length > MAX_REVIEW_TENANT_LENGTH)
    throw new VerdictConfigurationError(
      `Capability ${capability} cannot park a review item for a tenant of ${tenant.length} characters: a review item holds a tenant of at most ${MAX_REVIEW_TENANT_LENGTH}. Use a shorter tenant id in the action context.`,
      { capability },
    );
  if (!isStorableText(tenant))
    throw new VerdictConfigurationError(
      `Capability ${capability} cannot park a review item for a tenant holding U+0000 or a lone surrogate: no engine keeps it alike. Use a tenant id of storable text in the action context.`,
      { capability },
    );
}
