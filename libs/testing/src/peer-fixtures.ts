import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the shared peer fixtures sit when no variable names them: next to the checkout. */
const NEXT_TO_CHECKOUT = resolve(fileURLToPath(new URL('../../..', import.meta.url)), '../shared/fixtures/owasp-asrh');

/**
 * The OWASP Agent Security Regression Harness data files (scenarios, traces), which are not part of this
 * repository: `VERDICT_TEST_ASRH_FIXTURES`, else `../shared/fixtures/owasp-asrh` next to the checkout.
 * `null` when neither exists — and an error instead when
 * `VERDICT_TEST_REQUIRE_FIXTURES` is set (CI), so the suites that need them never skip there.
 */
export function asrhFixturesDirectory(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = env.VERDICT_TEST_ASRH_FIXTURES ? [env.VERDICT_TEST_ASRH_FIXTURES] : [NEXT_TO_CHECKOUT];
  const found = candidates.find((candidate) => existsSync(resolve(candidate, 'scenarios')));
  if (found !== undefined) return found;
  if (!['', '0', 'false'].includes(env.VERDICT_TEST_REQUIRE_FIXTURES ?? ''))
    throw new Error(
      `VERDICT_TEST_REQUIRE_FIXTURES is set but the OWASP harness fixtures are not at ${candidates.join(' or ')}: set VERDICT_TEST_ASRH_FIXTURES.`,
    );
  return null;
}
