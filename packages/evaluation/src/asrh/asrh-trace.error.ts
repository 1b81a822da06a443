import { VerdictError } from '@verdict/nestjs';

/**
 * A trace that cannot be used: unreadable, not JSON, or not `{messages, tool_calls, events}` lists of objects.
 * `file` names the trace, `path` where in it (`$.tool_calls[2]`); the message never echoes trace content.
 */
export class AsrhTraceError extends VerdictError {
  readonly code = 'VERDICT_ASRH_TRACE';

  constructor(
    readonly file: string,
    readonly path: string,
    /** What is wrong, without file or path. */
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${file}: ${path}: ${problem}. A trace is a JSON object whose optional messages, tool_calls and events are lists of objects.`,
      { file, path },
      options,
    );
  }
}
