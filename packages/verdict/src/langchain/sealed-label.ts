import type { BaseMessage } from '@langchain/core/messages';
import { isTrust, type Trust } from '../context-release/trust.js';
import { ProvenanceSource, ProvenanceSourceKind } from '../provenance/provenance-source.js';

/** Where a released `contextMessage` carries its provenance label, inside what the guard's seal covers (ADR 0041). */
export const SEALED_LABEL_KEY = 'verdict_provenance';

const KINDS: ReadonlySet<string> = new Set(Object.values(ProvenanceSourceKind));

/** The label a released context message states: its release request's source and trust. */
export interface SealedLabel {
  readonly source: ProvenanceSource;
  readonly trust: Trust;
}

/**
 * `message` stating `label` in its `additional_kwargs` as plain text (`untrusted external:support-tickets`), to be
 * sealed with it: the seal then vouches for the label in any process that holds the key.
 */
export function withSealedLabel<T extends BaseMessage>(message: T, label: SealedLabel): T {
  message.additional_kwargs = {
    ...message.additional_kwargs,
    [SEALED_LABEL_KEY]: `${label.trust} ${label.source.toString()}`,
  };
  return message;
}

/** The label `message` states, if it states a well-formed one (whether its seal holds is the guard's to check). */
export function statedLabelOf(message: BaseMessage): SealedLabel | undefined {
  const stated = message.additional_kwargs?.[SEALED_LABEL_KEY];
  if (typeof stated !== 'string') return undefined;
  const match = /^(\S+) ([a-z]+):(\S+)$/.exec(stated);
  if (match === null || !isTrust(match[1]) || !KINDS.has(match[2]!)) return undefined;
  try {
    return { trust: match[1], source: ProvenanceSource.create(match[2] as ProvenanceSourceKind, match[3]!) };
  } catch {
    return undefined;
  }
}
