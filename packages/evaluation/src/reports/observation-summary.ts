import { fingerprintString } from '@verdict/nestjs';
import { isCapabilityName } from '../cases/evaluation-identifier.js';
import type { Observation } from '../observations/observation.js';
import type { ReportedObservation } from './case-report.js';

/** The reportable part of an observation: decisions and fingerprints only. */
export function summarizeObservation(observation: Observation): ReportedObservation {
  return {
    disposition: observation.disposition,
    stage: observation.stage,
    executed: observation.executed,
    outputFingerprint: observation.outputFingerprint,
    toolCalls: observation.toolCalls.map((call) => ({
      capability: isCapabilityName(call.capability) ? call.capability : null,
      capabilityFingerprint: fingerprintString(call.capability),
      argumentsFingerprint: call.argumentsFingerprint,
      disposition: call.disposition,
      stage: call.stage,
      executed: call.executed,
    })),
    sideEffectFingerprints: [...observation.sideEffectFingerprints],
  };
}
