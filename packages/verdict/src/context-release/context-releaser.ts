import { Disposition } from '../decisions/disposition.js';
import { ContextReleaseDenied } from '../events/context-release-denied.event.js';
import { SensitiveDataRedacted } from '../events/sensitive-data-redacted.event.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { type ReleaseDisposition, releaseRecord } from '../evidence/release-record.js';
import { canonicalJson } from '../fingerprints/canonical-json.js';
import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';
import type { JsonObject } from '../fingerprints/json-value.js';
import { applyTransformer } from './apply-transformer.js';
import { ContextReleaseRefusedError } from './context-release-refused.error.js';
import type { ReleaseFacts } from './context-transformer.interface.js';
import {
  DEFAULT_DETECTORS,
  type DetectedSpan,
  PlaceholderVault,
  type PiiDetector,
  detect,
  redactText,
} from './detectors/index.js';
import { confirmHeld, placeholderShapesIn, reserveLiterals, tokenizeHeld } from './detectors/placeholder-vault.js';
import { leafShapes, walkPaths } from './path-shapes.js';
import { firstDisallowedDetection } from './post-scrub-validation.js';
import { project } from './projection.js';
import { ReleaseBuilder } from './release-builder.js';
import { ReleaseEvidenceWriteFailedError } from './release-evidence-write-failed.error.js';
import { type ReleasePlan, planRelease } from './release-plan.js';
import type { ReleasePolicy } from './release-policy.js';
import { ReleasePolicyRegistry } from './release-policy-registry.js';
import { ReleaseReason } from './release-reason.js';
import type { ReleaseRequest } from './release-request.js';
import type { ReleaseResult } from './release-result.js';
import { routeKey } from './release-route.js';
import { ScanMode } from './release-request.js';
import { emitSafely } from '../events/emit-safely.js';
import { evidenceId } from '../evidence/evidence-id.js';

/** Where release events go: an `EventEmitter2` fits. */
export interface ReleaseEventSink {
  emit(event: string, value: unknown): unknown;
}

/** What a {@link ContextReleaser} is built from. */
export interface ContextReleaserOptions {
  /** The registered routes: a registry, or a list (a duplicate route throws `VerdictConfigurationError`). */
  readonly policies: ReleasePolicyRegistry | readonly ReleasePolicy[];
  /** Where release records go. A write that fails rejects the release: nothing is released. */
  readonly recorder: EvidenceRecorder;
  /** Detectors for routes that name none. Default: `DEFAULT_DETECTORS`. */
  readonly detectors?: readonly PiiDetector[];
  /** Default: `() => new Date()`. */
  readonly clock?: () => Date;
  /** Receives `ContextReleaseDenied` and `SensitiveDataRedacted`. */
  readonly events?: ReleaseEventSink;
}

/**
 * How many times scanning replaces what detection finds in one field before it gives up: the release is refused
 * (`detector_fired:<LABEL>`) when a further pass would still find something.
 */
const MAX_SCAN_PASSES = 4;

/** The facts of the empty release, recorded for every denial. */
const NOTHING = Object.freeze({
  released: [] as string[],
  transformed: [] as string[],
  count: 0,
  payload: {} as JsonObject,
  canonicalOrder: true,
});

interface Outcome {
  readonly reason: string;
  /** Whether `JSON.stringify(payload)` is already its RFC 8785 text (projection builds keys in that order). */
  readonly canonicalOrder: boolean;
  readonly released: readonly string[];
  readonly transformed: readonly string[];
  readonly count: number;
  readonly payload: JsonObject;
}

/**
 * Releases application data to a destination through an exact, registered route (docs/context-release.md), without
 * Nest: policy lookup, projection, redaction, scanning, custom transforms, post-scrub validation, then
 * one evidence record. `ContextReleaseService` is this class wired to the module.
 *
 * Application faults (a malformed request, a transformer that throws, a payload that is not JSON where it
 * is released, an evidence write that fails) reject; policy outcomes resolve with `permitted: false`.
 *
 * @example
 * const releaser = new ContextReleaser({ policies: [route], recorder: new InMemoryEvidenceRecorder() });
 * const { payload } = await releaser.release(customer).source(Source.application('customer-profile')).trust(Trust.Trusted)
 *   .classify(DataClass.Pii).only(['first_name', 'orders.*.status']).to(Destination.connection('ollama-local', 'local-machine'));
 */
export class ContextReleaser {
  private readonly registry: ReleasePolicyRegistry;
  private readonly recorder: EvidenceRecorder;
  private readonly defaultDetectors: readonly PiiDetector[];
  private readonly clock: () => Date;
  private readonly events: ReleaseEventSink | undefined;

  constructor(options: ContextReleaserOptions) {
    if (options.policies instanceof ReleasePolicyRegistry) this.registry = options.policies;
    else {
      this.registry = new ReleasePolicyRegistry();
      options.policies.forEach((policy, index) => this.registry.register(policy, `ContextReleaser policies[${index}]`));
    }
    this.recorder = options.recorder;
    this.defaultDetectors = options.detectors ?? DEFAULT_DETECTORS;
    this.clock = options.clock ?? (() => new Date());
    this.events = options.events;
  }

  /** Starts a release of `payload` (a plain object); finish it with `.to(destination)`. */
  release(payload: unknown): ReleaseBuilder {
    return new ReleaseBuilder((request) => this.releaseRequest(request), { payload });
  }

  /**
   * Evaluates one release and writes its evidence.
   * @throws InvalidReleaseRequestError, InvalidReleaseIdentifierError, UnreachableRedactionError for a malformed request.
   * @throws NonCanonicalValueError when a released value is not plain JSON.
   * @throws ReleaseEvidenceWriteFailedError when the record cannot be written (nothing is released).
   */
  async releaseRequest(request: ReleaseRequest): Promise<ReleaseResult> {
    const plan = planRelease(request);
    const policy = this.registry.find(plan.source, plan.destination);
    const refusal = admission(policy, plan);
    if (refusal !== undefined || policy === undefined)
      return this.conclude(plan, { reason: refusal ?? ReleaseReason.RouteNotRegistered, ...NOTHING }, null);

    const detectors = policy.detectors ?? this.defaultDetectors;
    const labels = new Set<string>();
    const vault = plan.scan?.mode === ScanMode.Tokenize ? (plan.scan.vault ?? new PlaceholderVault()) : null;
    // Held until the release is permitted and recorded: a refused or failed release leaves nothing to restore. Each
    // scanned field's placeholders are kept with its released path: only those still there once transformers ran are
    // confirmed, never a placeholder's spelling elsewhere in the payload (an unscanned field's literal text).
    const written: Written[] = [];
    // A scanned field in which detection still finds something after the last pass: the release is refused.
    let unfinished: string | undefined;
    const dataKeys = new Map<string, readonly DetectedSpan[]>();
    const keySpans = (key: string): readonly DetectedSpan[] => {
      // Keys repeat across the rows of a list: each is asked once.
      let found = dataKeys.get(key);
      if (found === undefined) dataKeys.set(key, (found = detect(key, detectors)));
      return found;
    };
    const scrub = (text: string, at: readonly (string | number)[]): string => {
      // Replacing one value can reveal its neighbour (a run of digits split off): detect again until nothing is found.
      const placeholders = new Set<string>();
      let scrubbed = text;
      for (let pass = 0; ; pass++) {
        const spans = detect(scrubbed, detectors);
        if (spans.length === 0) break;
        if (pass === MAX_SCAN_PASSES) {
          unfinished ??= spans[0]!.label;
          break;
        }
        for (const span of spans) labels.add(span.label);
        scrubbed = vault !== null ? tokenizeHeld(vault, scrubbed, spans, placeholders) : redactText(scrubbed, spans);
      }
      if (placeholders.size > 0) written.push({ at: [...at], placeholders });
      return scrubbed;
    };
    const projection = project(plan.payload, {
      only: plan.only,
      redact: plan.redact,
      replacement: plan.replacement,
      scan: plan.scan?.paths ?? [],
      scrub,
      redactKey: (key) => keySpans(key)[0]?.label,
      scanKey: (key) => {
        const label = keySpans(key)[0]?.label;
        if (label !== undefined) labels.add(label);
        return label;
      },
    });
    const incomplete = unfinished ?? projection.dataKeyLabel;
    if (incomplete !== undefined)
      return this.conclude(plan, { reason: `${ReleaseReason.DetectorFired}:${incomplete}`, ...NOTHING }, null);
    // Placeholders this release issued that the payload also spells where scanning did not write them: ambiguous, never confirmed.
    const literals = written.length > 0 ? spelledElsewhere(projection.payload, written) : new Set<string>();
    let payload = projection.payload as JsonObject;
    let { canonicalOrder, releasedShapes } = projection;
    const transformed = [...projection.redactedShapes, ...projection.scannedShapes];
    let count = projection.redactedCount + projection.scannedCount;

    const facts: ReleaseFacts = {
      source: plan.source,
      trust: plan.trust,
      classification: plan.classification,
      destination: plan.destination,
    };
    for (const transformer of plan.transformers) {
      const outcome = await applyTransformer(transformer, payload, facts);
      if (outcome.expanded)
        return this.conclude(
          plan,
          { reason: `${ReleaseReason.TransformExpanded}:${transformer.name}`, ...NOTHING },
          null,
        );
      payload = outcome.payload;
      transformed.push(...outcome.changedShapes);
      count += outcome.changedCount;
    }
    if (plan.transformers.length > 0) {
      releasedShapes = leafShapes(payload);
      canonicalOrder = false;
    }

    const fired = firstDisallowedDetection(payload, detectors, policy.classesAt(plan.trust));
    if (fired !== undefined)
      return this.conclude(plan, { reason: `${ReleaseReason.DetectorFired}:${fired.label}`, ...NOTHING }, null);

    const outcome = {
      reason: ReleaseReason.Released,
      released: releasedShapes,
      transformed,
      count,
      payload,
      canonicalOrder,
    };
    const result = await this.conclude(plan, outcome, vault);
    if (vault !== null) {
      // What the released payload spells that its scanning did not issue is the input's text, in later releases too.
      reserveLiterals(vault, spelledLiterally(written, payload));
      confirmHeld(vault, survivors(written, payload, literals));
    }
    if (projection.redactedCount + projection.scannedCount > 0) {
      emitSafely(
        this.events,
        SensitiveDataRedacted.event,
        new SensitiveDataRedacted(
          result.recordId,
          result.correlationId,
          plan.source.toString(),
          plan.destination.toString(),
          projection.redactedCount,
          projection.scannedCount,
          [...labels].sort(),
        ),
      );
    }
    return result;
  }

  /**
   * Like {@link releaseRequest}, but rejects a denial, for callers that must not continue without the
   * release (a model-input guard before the provider call): the result is always a permitted one.
   * @throws ContextReleaseRefusedError when the release is denied (its evidence is written first).
   */
  async requireRelease(request: ReleaseRequest): Promise<ReleaseResult> {
    const result = await this.releaseRequest(request);
    if (!result.permitted) throw new ContextReleaseRefusedError(result, routeKey(request.source, request.destination));
    return result;
  }

  /** Writes the record, then answers; a denial releases `{}` and is announced. */
  private async conclude(plan: ReleasePlan, outcome: Outcome, vault: PlaceholderVault | null): Promise<ReleaseResult> {
    const permitted = outcome.reason === ReleaseReason.Released;
    const disposition: ReleaseDisposition = permitted ? Disposition.Permit : Disposition.Deny;
    const payload = permitted ? outcome.payload : {};
    const json = outcome.canonicalOrder ? JSON.stringify(payload) : canonicalJson(payload);
    const record = releaseRecord({
      id: evidenceId(),
      correlationId: plan.correlationId,
      sourceKind: plan.source.kind,
      sourceName: plan.source.name,
      destinationConnection: plan.destination.connection,
      destinationTrustZone: plan.destination.trustZone,
      classification: plan.classification,
      trust: plan.trust,
      disposition,
      reason: outcome.reason,
      requestedPathsFingerprint: sortedFingerprint(plan.only.map((path) => path.text)),
      releasedPathsFingerprint: sortedFingerprint(outcome.released),
      transformedPathsFingerprint: sortedFingerprint(outcome.transformed),
      transformNamesFingerprint: fingerprint(plan.transformNames),
      transformationCount: outcome.count,
      payloadFingerprint: fingerprintString(json),
      recordedAt: this.clock(),
    });
    try {
      await this.recorder.recordRelease(record);
    } catch (error) {
      throw new ReleaseEvidenceWriteFailedError(routeKey(plan.source, plan.destination), error);
    }
    if (!permitted) {
      emitSafely(
        this.events,
        ContextReleaseDenied.event,
        new ContextReleaseDenied(
          record.id,
          record.correlationId,
          plan.source.toString(),
          plan.destination.toString(),
          outcome.reason,
        ),
      );
    }
    return Object.freeze({
      permitted,
      // A transformer's object comes back in RFC 8785 key order too (as far as an object's integer-like keys allow).
      payload: outcome.canonicalOrder ? payload : (JSON.parse(json) as JsonObject),
      json,
      reason: outcome.reason,
      recordId: record.id,
      correlationId: record.correlationId,
      vault: permitted ? vault : null,
    });
  }
}

/**
 * The route-level refusal, if any, in order: unknown route, a route that permits nothing, a trust level it releases
 * no class at, a class it does not release at that trust level (`ReleasePolicy.permits`: one `allow()` granted both).
 */
function admission(policy: ReleasePolicy | undefined, plan: ReleasePlan): string | undefined {
  if (policy === undefined) return ReleaseReason.RouteNotRegistered;
  if (policy.permitsNothing) return ReleaseReason.RoutePermitsNothing;
  if (!policy.trust.has(plan.trust)) return ReleaseReason.TrustNotAllowed;
  if (!policy.permits(plan.classification, plan.trust)) return ReleaseReason.ClassNotAllowed;
  return undefined;
}

/** The placeholders scanning wrote into one field, and the field's path in the released payload. */
interface Written {
  readonly at: readonly (string | number)[];
  readonly placeholders: ReadonlySet<string>;
}

/**
 * Visits every key and string below a JSON container (the root itself is never visited) with its path: array positions
 * as numbers, a key's path ending with it.
 */
function walkText(
  value: object,
  visit: (text: string, at: readonly (string | number)[], isKey: boolean) => void,
): void {
  walkPaths(value, (node, at) => {
    const key = at[at.length - 1];
    if (typeof key === 'string') visit(key, at, true);
    if (typeof node === 'string') visit(node, at, false);
  });
}

/**
 * The placeholders of `written` that the projected payload spells anywhere scanning did not write them: a key, an
 * unscanned string, a scanned string in which nothing was found. That text is the input's: it must never restore.
 */
function spelledElsewhere(payload: object, written: readonly Written[]): Set<string> {
  const issued = issuedBy(written);
  const writtenAt = new Set(written.map(({ at }) => JSON.stringify(at)));
  const spelled = new Set<string>();
  walkText(payload, (text, at, isKey) => {
    if (!text.includes('<') || (!isKey && writtenAt.has(JSON.stringify(at)))) return;
    // Each placeholder the text spells is looked up: a list of N rows costs N lookups, not N × N searches.
    for (const shape of placeholderShapesIn(text)) if (issued.has(shape)) spelled.add(shape);
  });
  return spelled;
}

/** A path's shape: array positions as `null`, so that a transformer removing an array element does not move it. */
const shapeOf = (at: readonly (string | number)[]): string =>
  JSON.stringify(at.map((key) => (typeof key === 'number' ? null : key)));

/**
 * The placeholders scanning wrote that the final payload still holds where they were written (a string at the shape of
 * the scanned field's path), but not those of `spelled`. One a transformer dropped or replaced is not among them.
 */
function survivors(written: readonly Written[], payload: JsonObject, spelled: ReadonlySet<string>): Set<string> {
  const byShape = new Map<string, Set<string>>();
  for (const { at, placeholders } of written) {
    const shape = shapeOf(at);
    const set = byShape.get(shape) ?? new Set<string>();
    for (const placeholder of placeholders) if (!spelled.has(placeholder)) set.add(placeholder);
    byShape.set(shape, set);
  }
  const found = new Set<string>();
  walkText(payload, (text, at, isKey) => {
    if (isKey || !text.includes('<')) return;
    const shapes = placeholderShapesIn(text);
    if (shapes.length === 0) return;
    const here = byShape.get(shapeOf(at));
    if (here !== undefined) for (const shape of shapes) if (here.has(shape)) found.add(shape);
  });
  return found;
}

/** Every placeholder this release's scanning wrote, in any field. */
function issuedBy(written: readonly Written[]): Set<string> {
  return new Set(written.flatMap(({ placeholders }) => [...placeholders]));
}

/**
 * Every placeholder shape the final payload spells, in its keys and strings, that this release's scanning did not
 * issue: the input's text. One it issued, wherever a transformer moved or copied it, is left to {@link survivors}.
 */
function spelledLiterally(written: readonly Written[], payload: JsonObject): Set<string> {
  const issued = issuedBy(written);
  const found = new Set<string>();
  walkText(payload, (text) => {
    for (const shape of placeholderShapesIn(text)) if (!issued.has(shape)) found.add(shape);
  });
  return found;
}

/** `sha256(JCS(sorted unique list))`. */
function sortedFingerprint(paths: readonly string[]): string {
  return fingerprint([...new Set(paths)].sort());
}
