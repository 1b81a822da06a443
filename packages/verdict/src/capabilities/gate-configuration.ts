import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { CapabilityRegistryOptions } from './capability-registry-options.interface.js';
import type { CapabilityDefinition } from './capability-definition.js';
import { isForbiddenStatesPolicy } from '../forbidden-states/forbid-states.js';
import { isTrajectoryScope } from '../forbidden-states/trajectory-scope.js';
import { assertProvenanceConfigured } from '../provenance/provenance-configuration.js';
import { assertReviewConfigured } from '../review/review-configuration.js';
import { assertConfirmationConfigured } from '../approvals/confirmation-configuration.js';
import { assertBudgetConfigured } from '../budgets/budget-configuration.js';
import { MAX_RATE_LIMIT, isWindowSeconds } from '../rate-limits/fixed-window.js';
import { MAX_CLAIM_POLICY_NAME, RESERVED_CLAIM_POLICY_PREFIX } from '../execution-claims/at-most-once.js';
import { isName } from '../shared/is-name.js';
import { isPositiveInteger } from '../shared/is-positive-integer.js';
import { notAStore } from '../shared/not-a-store.js';
import { RATE_LIMIT_STORE_METHODS } from '../rate-limits/rate-limit-store.interface.js';
import { EXECUTION_CLAIM_STORE_METHODS } from '../execution-claims/execution-claim-store.interface.js';
import { TRAJECTORY_STORE_METHODS } from '../forbidden-states/trajectory-store.interface.js';

/** The policies of a capability that are objects when given, each with how it is written. */
const POLICIES = {
  requiresConfirmation: 'requiresConfirmation({ bind, reason })',
  requiresReview: 'requiresReview({ bind, reason })',
  rateLimit: 'fixedWindow({ name, limit, windowSeconds, key, reason })',
  atMostOnce: 'atMostOnce({ name, key })',
  provenance: '{ results, untrustedContext, arguments }',
} as const;

/**
 * Only `undefined` is a policy left out: a `null` (a factory's `config.x ?? null`), or any other value that is no
 * object, is refused by name, as a `budget` is, instead of a `TypeError` when its fields are read.
 */
function assertPoliciesAreObjects(definition: CapabilityDefinition, fail: (message: string) => never): void {
  for (const [key, example] of Object.entries(POLICIES)) {
    const policy: unknown = definition[key as keyof typeof POLICIES];
    if (policy !== undefined && (typeof policy !== 'object' || policy === null))
      fail(
        `has ${/^[aeiou]/.test(key) ? 'an' : 'a'} ${key} that is not an object: use ${key}: ${example}, or leave it out.`,
      );
  }
}

/**
 * Boot-time checks of a capability's durable gates: well-formed policies, and a store for each gate it
 * uses, with every method of its interface. A gate without a store, or with something that is not one (`null` from a
 * `forRootAsync` factory, a `{}`), would otherwise fail open or fail at the first tool call.
 */
export function assertGatesConfigured(definition: CapabilityDefinition, options: CapabilityRegistryOptions): void {
  const where = `Capability "${definition.name}" (${definition.declaredAt})`;
  const fail = (message: string): never => {
    throw new VerdictConfigurationError(`${where} ${message}`, { capability: definition.name });
  };
  assertPoliciesAreObjects(definition, fail);
  const { rateLimit, budget, atMostOnce, forbidStates } = definition;
  /** Fails when the configured `option`, which `uses` needs, lacks any of `methods` (a store of `type` that is not one). */
  const assertStore = (
    uses: string,
    option: keyof CapabilityRegistryOptions,
    type: string,
    methods: readonly string[],
    pass: string,
  ) => {
    const problem = notAStore(options[option], option, type, methods);
    if (problem !== null) fail(`uses ${uses}, but ${problem}: pass ${pass} to VerdictModule.forRoot.`);
  };
  assertProvenanceConfigured(definition, options, fail);
  assertReviewConfigured(definition, options, fail);
  assertConfirmationConfigured(definition, options, fail);
  if (rateLimit !== undefined) {
    if (!isName(rateLimit.name) || typeof rateLimit.key !== 'function')
      fail('has a rateLimit without a name or key: use fixedWindow({ name, limit, windowSeconds, key, reason }).');
    if (!isName(rateLimit.reason))
      fail(
        'has a rateLimit without a reason (the internal reason recorded when it refuses): use fixedWindow({ name, limit, windowSeconds, key, reason }).',
      );
    if (
      !isPositiveInteger(rateLimit.limit) ||
      rateLimit.limit > MAX_RATE_LIMIT ||
      !isWindowSeconds(rateLimit.windowSeconds)
    )
      fail(
        'has a rateLimit whose limit and windowSeconds must be positive integers (limit at most 2,147,483,647, windowSeconds at most 3,155,760,000: 100 years).',
      );
    if (options.rateLimits === undefined)
      fail(
        'uses rateLimit, but no rate-limit store is configured: pass `rateLimits` to VerdictModule.forRoot (TypeOrmRateLimitStore).',
      );
    assertStore('rateLimit', 'rateLimits', 'RateLimitStore', RATE_LIMIT_STORE_METHODS, 'a TypeOrmRateLimitStore');
  }
  if (budget !== undefined) assertBudgetConfigured(budget, options, fail);
  if (atMostOnce !== undefined) {
    if (!isName(atMostOnce.name) || typeof atMostOnce.key !== 'function')
      fail('has an atMostOnce policy without a name or key: use atMostOnce({ name, key }).');
    if (atMostOnce.name.startsWith(RESERVED_CLAIM_POLICY_PREFIX))
      fail(
        `has an atMostOnce policy named "${atMostOnce.name}": names beginning "${RESERVED_CLAIM_POLICY_PREFIX}" are Verdict's own (a review item's claim is one); choose another.`,
      );
    if (atMostOnce.name.length > MAX_CLAIM_POLICY_NAME)
      fail(
        `has an atMostOnce policy name of ${atMostOnce.name.length} characters: at most ${MAX_CLAIM_POLICY_NAME} (the claims' varchar(${MAX_CLAIM_POLICY_NAME}) column).`,
      );
    if (options.executionClaims === undefined)
      fail(
        'uses atMostOnce, but no execution-claim store is configured: pass `executionClaims` to VerdictModule.forRoot (TypeOrmExecutionClaimStore).',
      );
    assertStore(
      'atMostOnce',
      'executionClaims',
      'ExecutionClaimStore',
      EXECUTION_CLAIM_STORE_METHODS,
      'a TypeOrmExecutionClaimStore',
    );
  }
  if (forbidStates !== undefined) {
    if (!isForbiddenStatesPolicy(forbidStates) || typeof forbidStates.effectOf !== 'function')
      fail('has a forbidStates policy that forbidStates(stateModel, effectOf, { scope }) did not build.');
    if (!isTrajectoryScope(forbidStates.scope))
      fail(
        'uses forbidStates without a trajectory scope: pass { scope: TrajectoryScope.conversation() | .actor() | .tenant() | .key(name, keyOf) }. Effects that outlive a chat (files, exports, shares) need a scope that outlives it.',
      );
    if (forbidStates.scope.usesModuleActorKey && typeof options.actorKey !== 'function')
      fail(
        'uses TrajectoryScope.actor() without an actorKey, and the module has none: pass `actorKey` to VerdictModule.forRoot or to TrajectoryScope.actor(actorKey).',
      );
    if (options.trajectories === undefined)
      fail(
        'uses forbidStates, but no trajectory store is configured: pass `trajectories` to VerdictModule.forRoot (TypeOrmTrajectoryStore).',
      );
    assertStore(
      'forbidStates',
      'trajectories',
      'TrajectoryStore',
      TRAJECTORY_STORE_METHODS,
      'a TypeOrmTrajectoryStore',
    );
  }
}
