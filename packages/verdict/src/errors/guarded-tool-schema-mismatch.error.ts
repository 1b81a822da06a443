import { VerdictError } from './verdict.error.js';

/**
 * A guarded tool's own schema rejected arguments its capability's schema accepted. The capability's
 * schema must produce what the wrapped tool accepts: reuse the tool's schema as the capability's
 * `arguments`. An application fault, never a policy decision.
 */
export class GuardedToolSchemaMismatchError extends VerdictError {
  readonly code = 'VERDICT_GUARDED_TOOL_SCHEMA_MISMATCH';

  constructor(capability: string, tool: string, cause: unknown) {
    super(
      `Guarded tool "${tool}" rejected arguments that capability "${capability}" validated: give the capability the tool's own schema.`,
      { capability },
      { cause },
    );
  }
}
