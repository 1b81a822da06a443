import type { ContextTransformer } from './context-transformer.interface.js';
import type { DataClass } from './data-class.js';
import type { Destination } from './destination.js';
import { InvalidReleaseRequestError } from './invalid-release-request.error.js';
import type { ReleaseRequest, ScanOptions } from './release-request.js';
import type { ReleaseResult } from './release-result.js';
import type { Source } from './source.js';
import type { Trust } from './trust.js';

type Draft = { -readonly [K in keyof ReleaseRequest]?: ReleaseRequest[K] };

/**
 * The fluent form of a {@link ReleaseRequest}. Immutable: every step returns a new builder, so a shared
 * partial builder cannot be widened by another caller. Each setter may be called once; `transform` adds.
 * Nothing is checked or released before `.to(destination)`.
 *
 * @example
 * await releases.release(customer)
 *   .source(Source.application('customer-profile')).trust(Trust.Trusted).classify(DataClass.Pii)
 *   .only(['first_name', 'email', 'orders.*.status']).redact(['email'])
 *   .to(Destination.connection('ollama-local', 'local-machine'));
 */
export class ReleaseBuilder {
  constructor(
    private readonly submit: (request: ReleaseRequest) => Promise<ReleaseResult>,
    private readonly draft: Readonly<Draft>,
  ) {}

  /** Where the data comes from. Required. */
  source(source: Source): ReleaseBuilder {
    return this.with('source', source);
  }

  /** Whether the data may carry instructions the application did not write. Required. */
  trust(trust: Trust): ReleaseBuilder {
    return this.with('trust', trust);
  }

  /** How sensitive the data is, as the application knows it (not a detection result). Required. */
  classify(classification: DataClass): ReleaseBuilder {
    return this.with('classification', classification);
  }

  /** The allowlist: dot paths with `*` for every key or index of a level. Required, non-empty. */
  only(paths: readonly string[]): ReleaseBuilder {
    return this.with('only', list(paths, 'only()'));
  }

  /** Released paths (exact or with `*`) whose values become `replacement` (default `[REDACTED]`). */
  redact(paths: readonly string[], options: { readonly replacement?: string } = {}): ReleaseBuilder {
    const next = this.with('redact', list(paths, 'redact()'));
    return options.replacement === undefined ? next : next.with('replacement', options.replacement);
  }

  /** String fields to scan for free-text detections; `mode` `redact` (default) or `tokenize`. */
  scan(paths: readonly string[], options: ScanOptions = {}): ReleaseBuilder {
    return this.with('scan', { ...options, paths: list(paths, 'scan()') });
  }

  /** Adds a custom transform, run after projection, redaction and scanning, in the order added. */
  transform(transformer: ContextTransformer): ReleaseBuilder {
    return new ReleaseBuilder(this.submit, {
      ...this.draft,
      transformers: [...(this.draft.transformers ?? []), transformer],
    });
  }

  /** Correlates the release record with other evidence (an identifier such as a run id). */
  correlate(correlationId: string): ReleaseBuilder {
    return this.with('correlationId', correlationId);
  }

  /**
   * Evaluates the release for `destination` and writes its evidence. Resolves with `{ permitted, payload, reason }`;
   * rejects for a malformed release or a failed evidence write (nothing released).
   */
  to(destination: Destination): Promise<ReleaseResult> {
    return this.submit({ ...this.draft, destination } as ReleaseRequest);
  }

  private with<K extends keyof Draft>(key: K, value: Draft[K]): ReleaseBuilder {
    if (this.draft[key] !== undefined)
      throw new InvalidReleaseRequestError(
        `${key} is already set on this release; build a new release instead of overriding it.`,
      );
    return new ReleaseBuilder(this.submit, { ...this.draft, [key]: value });
  }
}

/** A copy of `paths`; a single string is refused rather than spread into characters. */
function list(paths: readonly string[], role: string): string[] {
  if (!Array.isArray(paths)) throw new InvalidReleaseRequestError(`${role} takes an array of dot paths.`);
  return [...(paths as string[])];
}
