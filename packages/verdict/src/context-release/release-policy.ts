import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { DataClass } from './data-class.js';
import type { PiiDetector } from './detectors/index.js';
import { Destination } from './destination.js';
import { routeKey } from './release-route.js';
import { Source } from './source.js';
import { Trust, isTrust } from './trust.js';

/** What a route lets through. Both lists are required: nothing is implied. */
export interface ReleaseAllowance {
  readonly classes: readonly DataClass[];
  readonly trust: readonly Trust[];
}

const DATA_CLASSES: ReadonlySet<unknown> = new Set(Object.values(DataClass));

/**
 * The policy of one exact route: a labelled source to a connection in a trust zone. A route starts by
 * permitting nothing; `allow` adds data classes and trust levels explicitly. Register one policy per
 * route (`VerdictModule.forRoot({ releasePolicies })` or a `@ReleasePolicies()` provider); a second
 * policy for the same route stops the application at boot.
 *
 * @example
 * ReleasePolicy.route(Source.application('customer-profile'), Destination.connection('ollama-local', 'local-machine'))
 *   .allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] });
 */
export class ReleasePolicy {
  private constructor(
    readonly source: Source,
    readonly destination: Destination,
    readonly classes: ReadonlySet<DataClass>,
    readonly trust: ReadonlySet<Trust>,
    /** The detectors of this route; `undefined` uses the module's (default: `DEFAULT_DETECTORS`). */
    readonly detectors: readonly PiiDetector[] | undefined,
  ) {
    Object.freeze(this);
  }

  /**
   * A route that permits nothing yet.
   * @throws VerdictConfigurationError unless `source` and `destination` come from `Source.*` and `Destination.connection`.
   */
  static route(source: Source, destination: Destination): ReleasePolicy {
    if (!(source instanceof Source))
      throw new VerdictConfigurationError(
        'ReleasePolicy.route needs a Source: Source.application|user|external(name).',
      );
    if (!(destination instanceof Destination)) {
      throw new VerdictConfigurationError(
        'ReleasePolicy.route needs a Destination: Destination.connection(name, trustZone).',
      );
    }
    return new ReleasePolicy(source, destination, new Set(), new Set(), undefined);
  }

  /**
   * This route, also allowing `classes` and `trust` (added to what it already allows).
   * @throws VerdictConfigurationError for a value that is not a {@link DataClass} or {@link Trust}.
   */
  allow(allowance: ReleaseAllowance): ReleasePolicy {
    const classes = Array.isArray(allowance?.classes) ? allowance.classes : undefined;
    const trust = Array.isArray(allowance?.trust) ? allowance.trust : undefined;
    if (classes === undefined || trust === undefined) {
      throw new VerdictConfigurationError(
        `Release route ${this.key}: allow() needs both lists, e.g. { classes: [DataClass.Internal], trust: [Trust.Trusted] }.`,
      );
    }
    for (const value of classes) {
      if (!DATA_CLASSES.has(value))
        throw new VerdictConfigurationError(`Release route ${this.key}: "${String(value)}" is not a DataClass.`);
    }
    for (const value of trust) {
      if (!isTrust(value))
        throw new VerdictConfigurationError(`Release route ${this.key}: "${String(value)}" is not a Trust level.`);
    }
    return new ReleasePolicy(
      this.source,
      this.destination,
      new Set([...this.classes, ...classes]),
      new Set([...this.trust, ...trust]),
      this.detectors,
    );
  }

  /**
   * This route, scanning and validating with `detectors` instead of the module's. An empty list turns
   * post-scrub validation off for this route: say so in review.
   * @throws VerdictConfigurationError for something that is not a detector.
   */
  detectWith(detectors: readonly PiiDetector[]): ReleasePolicy {
    return new ReleasePolicy(
      this.source,
      this.destination,
      this.classes,
      this.trust,
      checkedDetectors(detectors, `Release route ${this.key}`),
    );
  }

  /** The exact route key, `kind:name->connection@zone`. */
  get key(): string {
    return routeKey(this.source, this.destination);
  }

  /** True when no release can ever pass this route: no class or no trust level is allowed. */
  get permitsNothing(): boolean {
    return this.classes.size === 0 || this.trust.size === 0;
  }
}

/**
 * `detectors` when each has a name, a label, a data class and a `detect` function.
 * @throws VerdictConfigurationError otherwise, prefixed by `where`.
 */
export function checkedDetectors(detectors: unknown, where: string): readonly PiiDetector[] {
  if (!Array.isArray(detectors))
    throw new VerdictConfigurationError(`${where}: detectors must be an array of PiiDetector.`);
  for (const detector of detectors as Array<Partial<PiiDetector> | null>) {
    if (
      typeof detector?.name !== 'string' ||
      typeof detector.label !== 'string' ||
      !DATA_CLASSES.has(detector.dataClass) ||
      typeof detector.detect !== 'function'
    ) {
      throw new VerdictConfigurationError(
        `${where}: every detector needs a name, a label, a DataClass and a detect(text) function.`,
      );
    }
  }
  return Object.freeze([...(detectors as PiiDetector[])]);
}
