import type { ProvenanceLabel } from '../provenance/provenance-label.js';

/**
 * Emitted (with `@nestjs/event-emitter`) when the provenance stage finds untrusted content in the window of
 * a proposal, or in one of its argument values. It names paths and labels, never values or content.
 *
 * @example \@OnEvent(UntrustedInfluenceDetected.event) alert(event: UntrustedInfluenceDetected) { ... }
 */
export class UntrustedInfluenceDetected {
  static readonly event = 'verdict.provenance.untrusted_influence';

  constructor(
    readonly capability: string,
    readonly correlationId: string,
    /** Untrusted sources that were in the window. */
    readonly untrustedSources: readonly ProvenanceLabel[],
    /** Argument paths whose values came from untrusted content, with their sources. */
    readonly argumentPaths: readonly { readonly path: string; readonly sources: readonly ProvenanceLabel[] }[],
    /** The provenance stage's disposition: `permit`, `require_confirmation` or `deny`. */
    readonly disposition: string,
  ) {}
}
