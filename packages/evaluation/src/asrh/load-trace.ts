import type { AsrhTrace, AsrhTraceEntry } from './asrh-trace.js';
import { AsrhTraceError } from './asrh-trace.error.js';
import { readAsrhSource, type AsrhSource } from './asrh-source.js';
import { isRecord } from './is-record.js';
import { childPath } from './json-path.js';

const LISTS = ['messages', 'tool_calls', 'events'] as const;

/**
 * Parses and validates a harness trace: a JSON object whose `messages`, `tool_calls` and `events` are lists of
 * objects. A missing list loads as empty (the harness's own examples omit them); any other top-level key is refused,
 * because assertions such as `memory_isolation` would not see what it holds.
 * @throws AsrhTraceError naming the file and the path of the first problem, never the content
 * @example loadTrace({ text: '{"tool_calls": [{"name": "shell"}]}' }).tool_calls[0] // { name: 'shell' }
 */
export function loadTrace(source: AsrhSource): AsrhTrace {
  const { name, text } = readAsrhSource(
    source,
    (file, problem, cause) => new AsrhTraceError(file, '$', problem, { cause }),
  );
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    // The parser's message quotes the text around the error; traces can hold secrets, so it stays in `cause` only.
    throw new AsrhTraceError(name, '$', 'is not valid JSON', { cause });
  }
  if (!isRecord(data)) throw new AsrhTraceError(name, '$', 'must be a JSON object');
  for (const key of Object.keys(data)) {
    if (!(LISTS as readonly string[]).includes(key))
      throw new AsrhTraceError(name, childPath('$', key), `is not a trace field (allowed: ${LISTS.join(', ')})`);
  }
  const lists: Record<string, readonly AsrhTraceEntry[]> = {};
  for (const list of LISTS) {
    const value = list in data ? data[list] : [];
    if (!Array.isArray(value)) throw new AsrhTraceError(name, `$.${list}`, 'must be a list');
    value.forEach((entry, index) => {
      if (!isRecord(entry)) throw new AsrhTraceError(name, `$.${list}[${index}]`, 'must be an object');
    });
    lists[list] = value;
  }
  return { messages: lists.messages!, tool_calls: lists.tool_calls!, events: lists.events! };
}
