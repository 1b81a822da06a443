import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { DataClass } from './data-class.js';
import type { PiiDetector } from './detectors/index.js';
import { Destination } from './destination.js';
import { routeKey } from './release-route.js';
import { Source } from './source.js';
import { Trust, isTrust } from './trust.js';

/**
 * What one `allow()` call lets through: every class of `classes` at every trust level of `trust`, and nothing
 * else. Both lists are required: nothing is implied.
 */
export interface ReleaseAllowance {
  readonly classes: readonly DataClass[];
  readonly trust: readonly Trust[];
}

const DATA_CLASSES: ReadonlySet<unknown> = new Set(Object.values(DataClass));

/** For each trust level, the classes a route releases at it. */
type Grants = ReadonlyMap<Trust, ReadonlySet<DataClass>>;

/**
 * The policy of one exact route: a labelled source to a connection in a trust zone. A route starts by
 * permitting nothing; each `allow` grants the (class, trust) combinations it names, and only those: two calls
 * never combine one call's classes with the other's trust levels. Register one policy per route
 * (`VerdictModule.forRoot({ releasePolicies })` or a `@ReleasePolicies()` provider); a second policy for the same
 * route stops the application at boot.
 *
 * @example
 * ReleasePolicy.route(Source.application('customer-profile'), Destination.connection('ollama-local', 'local-machine'))
 *   .allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] });
 */
export class ReleasePolicy {
  private constructor(
    readonly source: Source,
    readonly destination: Destination,
    private readonly grants: Grants,
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
    return new ReleasePolicy(source, destination, new Map(), undefined);
  }

  /**
   * This route, also releasing every class of `classes` at every trust level of `trust` (added to what it already
   * releases). Each call grants its own combinations only: `.allow({ classes: [Pii], trust: [Trusted] })
   * .allow({ classes: [Internal], trust: [Untrusted] })` does not release untrusted PII. An empty list grants nothing.
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
    const grants = new Map(this.grants);
    if (classes.length > 0) {
      for (const level of trust) grants.set(level, new Set([...(grants.get(level) ?? []), ...classes]));
    }
    return new ReleasePolicy(this.source, this.destination, grants, this.detectors);
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
      this.grants,
      checkedDetectors(detectors, `Release route ${this.key}`),
    );
  }

  /** The exact route key, `kind:name->connection@zone`. */
  get key(): string {
    return routeKey(this.source, this.destination);
  }

  /** Whether the route releases data of class `dataClass` at trust level `trust`: one `allow()` granted both. */
  permits(dataClass: DataClass, trust: Trust): boolean {
    return this.grants.get(trust)?.has(dataClass) === true;
  }

  /** The classes the route releases at trust level `trust` (empty when none). */
  classesAt(trust: Trust): ReadonlySet<DataClass> {
    return new Set(this.grants.get(trust));
  }

  /**
   * Every class the route releases at some trust level. An inventory, never a check: a release is allowed only by
   * {@link permits}, since a class in this set need not be released at every level in {@link trust}.
   */
  get classes(): ReadonlySet<DataClass> {
    return new Set([...this.grants.values()].flatMap((classes) => [...classes]));
  }

  /** Every trust level the route releases some class at. An inventory, never a check: see {@link classes}. */
  get trust(): ReadonlySet<Trust> {
    return new Set(this.grants.keys());
  }

  /** True when no release can ever pass this route: no `allow()` granted a class at a trust level. */
  get permitsNothing(): boolean {
    return this.grants.size === 0;
  }

  /**
   * What the route releases, for reports: `[classes; trust levels]`, one group per set of trust levels that release
   * the same classes, joined by ` | ` (`[pii,internal; trusted | internal; untrusted]`); `[none; none]` when nothing.
   */
  get allowanceText(): string {
    if (this.permitsNothing) return '[none; none]';
    const order = [...this.classes];
    const groups = new Map<string, Trust[]>();
    for (const [level, classes] of this.grants) {
      const key = order.filter((dataClass) => classes.has(dataClass)).join(',');
      groups.set(key, [...(groups.get(key) ?? []), level]);
    }
    return `[${[...groups].map(([classes, levels]) => `${classes}; ${levels.join(',')}`).join(' | ')}]`;
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
