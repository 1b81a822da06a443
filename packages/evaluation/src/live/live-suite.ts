import { isIdentifier, isVersion } from '../cases/evaluation-identifier.js';
import { checkedReproduction, type Reproduction } from '../suites/reproduction.js';
import { LiveCase } from './live-case.js';
import { LiveSuiteError } from './live-suite.error.js';

/**
 * A named, versioned set of live cases: what `verdict-eval live <suite module>` runs. The module's default
 * export is a `LiveSuite` or a (possibly async) function returning one.
 *
 * @example
 * export default () => new LiveSuite('storefront-live', '1', [injectedCancel, cancelOwnOrder], { prompt: 'storefront@1' });
 * @throws LiveSuiteError for a bad name or version, an empty case list, a duplicate case id
 */
export class LiveSuite {
  readonly cases: readonly LiveCase[];
  readonly reproduction: Reproduction;

  constructor(
    readonly name: string,
    readonly version: string,
    cases: readonly LiveCase[],
    reproduction: Reproduction = {},
  ) {
    if (!isIdentifier(name)) throw new LiveSuiteError('the suite name must be 1-200 letters, digits and . _ : / -');
    if (!isVersion(version)) throw new LiveSuiteError('the suite version must be 1-64 letters, digits and . _ + -');
    if (!Array.isArray(cases) || cases.length === 0) throw new LiveSuiteError('a live suite needs at least one case');
    const ids = new Set<string>();
    for (const entry of cases) {
      if (!(entry instanceof LiveCase))
        throw new LiveSuiteError('every case must be built with LiveCase.attack or .utility');
      if (ids.has(entry.id)) throw new LiveSuiteError(`duplicate case id ${entry.id}`);
      ids.add(entry.id);
    }
    this.cases = Object.freeze([...cases]);
    try {
      this.reproduction = checkedReproduction(reproduction);
    } catch (error) {
      throw new LiveSuiteError((error as Error).message);
    }
  }
}
