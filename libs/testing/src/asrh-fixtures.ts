import { fileURLToPath } from 'node:url';

/**
 * The OWASP Agent Security Regression Harness data files (scenarios, traces) the tests read: the copy in
 * `test/fixtures/owasp-asrh/` (Apache-2.0, origin in its README). The same path from `src/` and from `dist/`.
 */
export function asrhFixturesDirectory(): string {
  return fileURLToPath(new URL('../../../test/fixtures/owasp-asrh/', import.meta.url));
}
