import { isPlainObject } from '../shared/is-plain-object.js';
import type { ContextTransformer } from './context-transformer.interface.js';
import { DataClass } from './data-class.js';
import type { PlaceholderVault } from './detectors/index.js';
import { Destination } from './destination.js';
import { InvalidReleaseRequestError } from './invalid-release-request.error.js';
import { releaseIdentifier } from './release-identifier.js';
import { type ReleasePath, canOverlap, parseReleasePaths } from './release-path.js';
import { DEFAULT_RELEASE_REDACTION, type ReleaseRequest, ScanMode } from './release-request.js';
import { Source } from './source.js';
import { Trust, isTrust } from './trust.js';
import { UnreachableRedactionError } from './unreachable-redaction.error.js';
import { evidenceId } from '../evidence/evidence-id.js';

/** A checked {@link ReleaseRequest}: parsed paths, defaults filled in, the names of the transforms it will run. */
export interface ReleasePlan {
  readonly payload: Record<string, unknown>;
  readonly source: Source;
  readonly trust: Trust;
  readonly classification: DataClass;
  readonly destination: Destination;
  readonly only: readonly ReleasePath[];
  readonly redact: readonly ReleasePath[];
  readonly replacement: string;
  readonly scan:
    | { readonly paths: readonly ReleasePath[]; readonly mode: ScanMode; readonly vault: PlaceholderVault | undefined }
    | undefined;
  readonly transformers: readonly ContextTransformer[];
  /** `redact`, `scan:<mode>`, then each transformer's name: what ran, in order. */
  readonly transformNames: readonly string[];
  readonly correlationId: string;
}

const DATA_CLASSES: ReadonlySet<unknown> = new Set(Object.values(DataClass));
const SCAN_MODES: ReadonlySet<unknown> = new Set(Object.values(ScanMode));

/**
 * Checks a request before anything is evaluated.
 * @throws InvalidReleaseRequestError for a missing label, an empty allowlist, a malformed path, option or payload.
 * @throws InvalidReleaseIdentifierError for a transformer name or correlation id that is not an identifier.
 * @throws UnreachableRedactionError for a redact or scan path no allowlist path can reach.
 */
export function planRelease(request: ReleaseRequest): ReleasePlan {
  const { source, trust, classification, destination } = request;
  const missing = [
    source instanceof Source ? null : 'source(Source.application|user|external(name))',
    isTrust(trust) ? null : 'trust(Trust.Trusted|Untrusted)',
    DATA_CLASSES.has(classification) ? null : 'classify(DataClass.…)',
    destination instanceof Destination ? null : 'to(Destination.connection(name, trustZone))',
  ].filter((step) => step !== null);
  if (missing.length > 0)
    throw new InvalidReleaseRequestError(
      `A release needs a source, trust, classification and destination; missing: ${missing.join(', ')}.`,
    );
  if (!isPlainObject(request.payload))
    throw new InvalidReleaseRequestError(
      'release(payload) takes a plain object; wrap other values, e.g. { result: value }.',
    );

  const only = parseReleasePaths(request.only, 'only()');
  if (only.length === 0)
    throw new InvalidReleaseRequestError('only() needs at least one path: a release is an allowlist.');
  const redact = reachable(parseReleasePaths(request.redact ?? [], 'redact()'), only);
  const replacement = request.replacement ?? DEFAULT_RELEASE_REDACTION;
  if (typeof replacement !== 'string')
    throw new InvalidReleaseRequestError('The redaction replacement must be a string.');

  let scan: ReleasePlan['scan'];
  const transformNames: string[] = redact.length > 0 ? ['redact'] : [];
  if (request.scan !== undefined) {
    if (!isPlainObject(request.scan))
      throw new InvalidReleaseRequestError('scan() takes { paths, mode?, vault? }, or leave it out.');
    const mode = request.scan.mode ?? ScanMode.Redact;
    if (!SCAN_MODES.has(mode)) throw new InvalidReleaseRequestError(`scan() mode must be "redact" or "tokenize".`);
    const vault = request.scan.vault;
    if (vault !== undefined && (typeof vault?.tokenize !== 'function' || typeof vault.restore !== 'function')) {
      throw new InvalidReleaseRequestError('scan() vault must be a PlaceholderVault.');
    }
    scan = { paths: reachable(parseReleasePaths(request.scan.paths, 'scan()'), only), mode, vault };
    transformNames.push(`scan:${mode}`);
  }

  const transformers = [...(request.transformers ?? [])];
  for (const transformer of transformers) {
    releaseIdentifier(transformer?.name, 'context transformer name');
    if (typeof transformer.transform !== 'function')
      throw new InvalidReleaseRequestError(`The context transformer "${transformer.name}" has no transform function.`);
    transformNames.push(transformer.name);
  }
  const correlationId =
    request.correlationId === undefined ? evidenceId() : releaseIdentifier(request.correlationId, 'correlation id');

  return {
    payload: request.payload,
    source,
    trust,
    classification,
    destination,
    only,
    redact,
    replacement,
    scan,
    transformers,
    transformNames,
    correlationId,
  };
}

/** `paths`, each checked to overlap some allowlist path. @throws UnreachableRedactionError */
function reachable(paths: readonly ReleasePath[], only: readonly ReleasePath[]): readonly ReleasePath[] {
  for (const path of paths)
    if (!only.some((allowed) => canOverlap(path, allowed))) throw new UnreachableRedactionError(path.text);
  return paths;
}
