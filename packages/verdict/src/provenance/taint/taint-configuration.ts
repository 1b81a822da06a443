import { VerdictConfigurationError } from '../../errors/configuration.error.js';
import { missingMethods } from '../../shared/missing-methods.js';
import type { TaintLedger } from './taint-ledger.interface.js';
import { retentionDaysOf } from './taint.gate.js';
import type { TaintOptions } from './taint-options.js';

/** The methods of a {@link TaintLedger} Verdict calls: `tainted` and `record` per proposal, `prune` from the CLI. */
const TAINT_LEDGER_METHODS = ['tainted', 'record', 'prune'] as const satisfies readonly (keyof TaintLedger)[];

/**
 * Boot check of the module option `provenance.taint`, when given: an object with a `ledger` that has every method of
 * a {@link TaintLedger}, and a positive `retentionDays` of at most 36,525 (100 years) when set. With `taint` given, every agent proposal of every
 * capability is looked up in the ledger, so a missing or partial ledger would boot and then fail the first proposal
 * with a `TypeError`.
 *
 * @throws VerdictConfigurationError naming the option (`provenance.taint`, `provenance.taint.ledger`,
 *   `provenance.taint.retentionDays`), before anything starts.
 */
export function assertTaintConfigured(taint: unknown): asserts taint is TaintOptions {
  if (typeof taint !== 'object' || taint === null)
    throw new VerdictConfigurationError(
      `provenance.taint must be { ledger, retentionDays? }, not ${taint === null ? 'null' : typeof taint}: pass provenance: { taint: { ledger: new TypeOrmTaintLedger(dataSource) } } to VerdictModule.forRoot, or leave taint out.`,
      { option: 'provenance.taint' },
    );
  const ledger: unknown = (taint as { ledger?: unknown }).ledger;
  if (ledger === undefined || ledger === null)
    throw new VerdictConfigurationError(
      'provenance.taint has no ledger: pass provenance: { taint: { ledger: new TypeOrmTaintLedger(dataSource) } } to VerdictModule.forRoot (InMemoryTaintLedger in tests), or leave taint out.',
      { option: 'provenance.taint.ledger' },
    );
  const missing = missingMethods(ledger, TAINT_LEDGER_METHODS);
  if (missing.length > 0)
    throw new VerdictConfigurationError(
      `provenance.taint.ledger is not a TaintLedger: it has no ${missing.map((method) => `${method}()`).join(', ')} (TypeOrmTaintLedger, InMemoryTaintLedger).`,
      { option: 'provenance.taint.ledger' },
    );
  retentionDaysOf(taint as TaintOptions);
}
