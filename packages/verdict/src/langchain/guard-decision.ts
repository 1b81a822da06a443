import type { Decision } from '../decisions/decision.js';
import { decisionRecord } from '../evidence/decision-record.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { EvidenceWriteFailedError } from '../errors/evidence-write-failed.error.js';
import { isCanonicalJson } from '../fingerprints/canonical-json.js';
import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';
import { evidenceId } from '../evidence/evidence-id.js';

/** The tool call a guard decision is about, as the model made it. */
export interface GuardedToolCall {
  readonly name: string;
  readonly id?: string;
}

/**
 * Records one decision the model-input guard took about a tool call before the tool ran (tool kind
 * `model_input_guard`, one record per call): the tool's name, the fingerprints of the arguments the
 * decision is about and of the tool-call id — never the arguments, placeholders or the id. Arguments that are not
 * plain JSON (a lone surrogate, a key `__proto__`) have no fingerprint (`null`): the error that says so would name the
 * key the model wrote.
 * A write that fails stops the call: the tool does not run (`EvidenceWriteFailedError`).
 *
 * @example await recordGuardDecision(recorder, toolCall, Decision.permit(Stage.Proposal, 'placeholders_restored'), restoredArgs);
 */
export async function recordGuardDecision(
  recorder: EvidenceRecorder,
  call: GuardedToolCall,
  decision: Decision,
  args: unknown,
): Promise<void> {
  const record = decisionRecord(
    {
      id: evidenceId(),
      correlationId: evidenceId(),
      sequence: 0,
      capability: call.name,
      toolKind: ToolKind.ModelInputGuard,
      stage: decision.stage,
      disposition: decision.disposition,
      reason: decision.reason,
      recordedAt: new Date(),
    },
    {
      argumentsFingerprint: argumentsFingerprintOf(args),
      toolCallFingerprint: call.id === undefined ? null : fingerprintString(call.id),
    },
  );
  try {
    await recorder.recordDecision(record);
  } catch (error) {
    throw new EvidenceWriteFailedError(call.name, decision.stage, error);
  }
}

/** The arguments' fingerprint, or `null` for arguments that are not plain JSON. */
function argumentsFingerprintOf(args: unknown): string | null {
  if (!isCanonicalJson(args)) return null;
  return fingerprint(args);
}
