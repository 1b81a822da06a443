import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { FindingCode } from './finding-code.js';
import { Severity } from './severity.js';
import type { WiringFinding } from './wiring-finding.js';

/**
 * One finding per capability that labels its results per path without declaring `results.format`: should its
 * executor answer text that does not parse (a formatted string instead of an object), the per-path labels
 * cannot be placed and the whole result is untrusted, which the policy's author may not expect.
 */
export function resultFormatFindings(definitions: readonly CapabilityDefinition[]): WiringFinding[] {
  return definitions
    .filter(({ provenance }) => Object.keys(provenance?.results?.paths ?? {}).length > 0)
    .filter(({ provenance }) => provenance?.results?.format === undefined)
    .map(({ name }) => ({
      code: FindingCode.ResultPathsWithoutFormat,
      severity: Severity.Low,
      subject: name,
      message: `Capability "${name}" labels its results per path but declares no results.format: a result that does not parse as JSON is untrusted as a whole. Declare results.format ('json' or 'yaml').`,
    }));
}
