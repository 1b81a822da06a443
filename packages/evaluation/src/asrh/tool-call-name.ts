import type { AsrhTraceEntry } from './asrh-trace.js';

const NAME_FIELDS = ['name', 'tool', 'tool_name'] as const;

/**
 * The tool name of a recorded call: the first non-blank string among `name`, `tool`, `tool_name`, trimmed;
 * `undefined` when the call names no tool.
 * @example asrhToolCallName({ name: ' ', tool: ' shell ' }) // 'shell'
 */
export function asrhToolCallName(call: AsrhTraceEntry): string | undefined {
  for (const field of NAME_FIELDS) {
    const value = call[field];
    if (typeof value === 'string' && value.trim().length > 0) return value.trim();
  }
  return undefined;
}
