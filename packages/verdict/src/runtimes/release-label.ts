import { isTrust, Trust } from '../context-release/trust.js';
import { SAID } from '../provenance/provenance-labels.js';
import { ProvenanceSource, ProvenanceSourceKind } from '../provenance/provenance-source.js';

const KINDS: ReadonlySet<string> = new Set(Object.values(ProvenanceSourceKind));

/**
 * The label a released context message (a model-input guard's `contextMessage`) states, inside what the guard's seal
 * covers: its release request's source and trust (ADR 0041, 0210). The seal then vouches for the label in any process
 * that holds the key.
 */
export interface ReleaseLabel {
  readonly source: ProvenanceSource;
  readonly trust: Trust;
}

/** The label as plain text, as a message states it: `untrusted external:support-tickets`. */
export function releaseLabelText(label: ReleaseLabel): string {
  return `${label.trust} ${label.source.toString()}`;
}

/** The label `stated` names, if it is a well-formed one (whether a seal holds for it is the guard's to check). */
export function parseReleaseLabel(stated: unknown): ReleaseLabel | undefined {
  if (typeof stated !== 'string') return undefined;
  const match = /^(\S+) ([a-z]+):(\S+)$/.exec(stated);
  if (match === null || !isTrust(match[1]) || !KINDS.has(match[2]!)) return undefined;
  try {
    return { trust: match[1], source: ProvenanceSource.create(match[2] as ProvenanceSourceKind, match[3]!) };
  } catch {
    return undefined;
  }
}

/**
 * Whether a label vouches for its text in one principal's windows only ({@link SAID}, `ProvenanceLabels`): a trusted
 * label, or one a principal or their agents said. Its seal is then bound to the principal it was released for.
 */
export function vouchesForPrincipal(label: ReleaseLabel): boolean {
  return label.trust !== Trust.Untrusted || SAID.has(label.source.kind);
}
