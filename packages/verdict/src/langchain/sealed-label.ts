import type { BaseMessage } from '@langchain/core/messages';
import { parseReleaseLabel, type ReleaseLabel, releaseLabelText } from '../runtimes/release-label.js';

/** Where a released `contextMessage` carries its provenance label, inside what the guard's seal covers (ADR 0041). */
export const SEALED_LABEL_KEY = 'verdict_provenance';

/** The label a released context message states: its release request's source and trust. */
export type SealedLabel = ReleaseLabel;

/**
 * `message` stating `label` in its `additional_kwargs` as plain text (`untrusted external:support-tickets`), to be
 * sealed with it: the seal then vouches for the label in any process that holds the key.
 */
export function withSealedLabel<T extends BaseMessage>(message: T, label: SealedLabel): T {
  message.additional_kwargs = { ...message.additional_kwargs, [SEALED_LABEL_KEY]: releaseLabelText(label) };
  return message;
}

/** The label `message` states, if it states a well-formed one (whether its seal holds is the guard's to check). */
export function statedLabelOf(message: BaseMessage): SealedLabel | undefined {
  return parseReleaseLabel(message.additional_kwargs?.[SEALED_LABEL_KEY]);
}
