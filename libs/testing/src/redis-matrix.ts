import { randomBytes } from 'node:crypto';

/**
 * The Redis that BullMQ suites run on: `VERDICT_TEST_REDIS_URL` (CI: redis://127.0.0.1:6379), or
 * `undefined` when it is not set — the suites are then skipped. With `VERDICT_TEST_REQUIRE_REDIS=1` a
 * missing URL throws, so the test file fails instead of silently skipping (as `databaseEngines` does for
 * `VERDICT_TEST_REQUIRE_DATABASES`).
 *
 * @example
 * const redis = testRedisUrl();
 * (redis === undefined ? describe.skip : describe)('on BullMQ', () => { ... });
 */
export function testRedisUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = env.VERDICT_TEST_REDIS_URL;
  if (url) return url;
  if (!['', '0', 'false'].includes(env.VERDICT_TEST_REQUIRE_REDIS ?? ''))
    throw new Error(
      'VERDICT_TEST_REQUIRE_REDIS is set but VERDICT_TEST_REDIS_URL is not: set it (CI: redis://127.0.0.1:6379) or unset VERDICT_TEST_REQUIRE_REDIS to skip the BullMQ suites.',
    );
  return undefined;
}

/** A key prefix no other test uses (tests of other files and other checkouts share the Redis). */
export function uniqueRedisPrefix(): string {
  return `verdict_t_${randomBytes(6).toString('hex')}`;
}
