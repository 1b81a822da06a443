/** One entry of a trace list: always a JSON object. */
export type AsrhTraceEntry = Readonly<Record<string, unknown>>;

/**
 * A recorded agent run in the harness's trace format. Lists missing from the file load as empty.
 * @example const trace = loadTrace({ file: 'examples/traces/denied_tool_call.json' });
 */
export interface AsrhTrace {
  readonly messages: readonly AsrhTraceEntry[];
  readonly tool_calls: readonly AsrhTraceEntry[];
  readonly events: readonly AsrhTraceEntry[];
}
