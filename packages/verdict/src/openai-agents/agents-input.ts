import type { AgentInputItem, ModelRequest, ModelSettings } from '@openai/agents';
import type { WindowRole } from '../provenance/context-labeller.js';
import { type ProviderConversation, providerConversationOf } from '../runtimes/provider-conversation.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import { shownText } from '../shared/shown-text.js';
import { carriesNoData, controlsCarryNoData } from '../runtimes/unsealed-text.js';

/** One text of an Agents model request, with the role it plays in the window. */
export interface AgentsWindowText {
  readonly role: WindowRole;
  readonly text: string;
  /** For a tool result: the function's name. */
  readonly toolName?: string;
}

/** The request's input as items (a run's first input may be a plain string: the user's). */
export function inputItems(request: ModelRequest): AgentInputItem[] {
  return typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
}

/** What a request continues on the provider's side: its own fields, and the provider data the model sends with it. */
export function requestConversation(request: ModelRequest): ProviderConversation {
  const data = request.modelSettings?.providerData as Record<string, unknown> | undefined;
  return providerConversationOf([request, data, data?.['extra_body'], data?.['extraBody']]);
}

/**
 * The text an input item puts into the model's window, by role. A function call's arguments are the model's own
 * words, not a text of the window; any item this version does not know (hosted tool calls and their results,
 * reasoning) is read as its whole JSON, as a model answer nobody labelled (untrusted).
 */
export function windowTextOf(item: AgentInputItem): AgentsWindowText | undefined {
  const any = item as { role?: string; type?: string; content?: unknown; output?: unknown; name?: string };
  if (any.type === 'function_call') return undefined;
  if (any.type === 'function_call_result') return { role: 'tool', text: outputText(any.output), toolName: any.name };
  if (any.role === 'system') return { role: 'system', text: contentText(any.content) };
  if (any.role === 'user') return { role: 'user', text: contentText(any.content) };
  if (any.role === 'assistant') return { role: 'assistant', text: contentText(any.content) };
  return { role: 'assistant', text: JSON.stringify(item) };
}

/**
 * A message's content as the model reads it: its string, or each part on a line of its own — a text part's text
 * (`input_text`, `output_text`), and what any other part shows the model (`shownText`: an `input_file`'s `data:` URL of
 * a `text/*` file decoded, its URL or name, an image's URL, a refusal), as every runtime reads a part (ADR 0209).
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map(partText).join('\n');
}

/** A part's text: a text part's own, or what another part shows the model. */
function partText(part: unknown): string {
  const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
  return (type === 'input_text' || type === 'output_text') && typeof text === 'string' ? text : shownText(part);
}

/**
 * A function result's output as the model reads it: its string, its text, or what its file, image or content parts
 * show the model (`shownText`: a text file's bytes decoded, its URL and name), each on a line of its own; an output
 * of any other shape as its whole JSON.
 */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map(partText).join('\n');
  const { type, text } = (output ?? {}) as { type?: unknown; text?: unknown };
  if (type === 'text' && typeof text === 'string') return text;
  if (type === 'file' || type === 'image') return shownText(output);
  return JSON.stringify(output ?? null);
}

/**
 * A user or system message's texts, when its content is a string or a list of text parts (`input_text`) whose other
 * fields (`providerData`, which the SDK's converters spread into the part they send) hold no data; otherwise
 * undefined. An image or file part, or content of another shape, has no texts.
 *
 * With `bare` (a system message, whose content the converters send as it is, beside the registered prompt): a part
 * has no other field at all, but a prompt-cache breakpoint as the SDK defines it (`{ mode: 'explicit' }`) — not even
 * plain prose, which could carry data no route released next to the instructions.
 */
export function plainTexts(content: unknown, bare = false): string[] | undefined {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const part of content as unknown[]) {
    if (typeof part !== 'object' || part === null) return undefined;
    const { type, text, ...fields } = part as Record<string, unknown>;
    if (type !== 'input_text' || typeof text !== 'string') return undefined;
    if (bare ? !onlyCacheBreakpoint(fields) : !fieldsCarryNoData(fields)) return undefined;
    texts.push(text);
  }
  return texts;
}

/** Whether a system text part's other fields are none, or the SDK's `promptCacheBreakpoint: { mode: 'explicit' }` alone. */
function onlyCacheBreakpoint(fields: Record<string, unknown>): boolean {
  const { promptCacheBreakpoint: breakpoint, ...others } = fields;
  if (Object.keys(others).length > 0) return false;
  if (!('promptCacheBreakpoint' in fields)) return true;
  return (
    typeof breakpoint === 'object' &&
    breakpoint !== null &&
    !Array.isArray(breakpoint) &&
    Object.keys(breakpoint).length === 1 &&
    (breakpoint as { mode?: unknown }).mode === 'explicit'
  );
}

/**
 * Whether fields sent with a message or a content part hold no data: plain-text names, each with no value, a plain
 * text or a scalar, or a record of those (`providerData`, `promptCacheBreakpoint`, a message's `id`).
 */
export function fieldsCarryNoData(fields: object): boolean {
  return (
    carriesNoData(Object.keys(fields)) &&
    Object.values(fields).every((value) =>
      typeof value === 'object' && value !== null ? recordCarriesNoData(value) : carriesNoData([value]),
    )
  );
}

/** Whether a record (a message's or a part's `providerData`) is absent or holds only plain-text names and values. */
export function recordCarriesNoData(record: unknown): boolean {
  if (record === undefined || record === null) return true;
  return (
    typeof record === 'object' &&
    !Array.isArray(record) &&
    carriesNoData([...Object.keys(record), ...Object.values(record)])
  );
}

/**
 * The Responses model's transport overrides in provider data, in either spelling: records whose fields it sends in the
 * request's body (after the provider data's own), its headers and its query.
 */
const TRANSPORT_OVERRIDES = ['extra_body', 'extraBody', 'extra_headers', 'extraHeaders', 'extra_query', 'extraQuery'];

/**
 * Whether what an agent's model settings send beside the input holds no data (ADR 0132):
 * - each setting of the SDK's own a scalar, plain text or a record of those (`reasoning`, `text`,
 *   `promptCacheOptions`), each context-management entry a record of those; `retry`, which the runner alone reads, is
 *   not sent;
 * - `providerData`, which the Responses and Chat Completions models spread into the request last, a record of control
 *   options (`controlsCarryNoData`: scalars, plain text, small records of control tokens) — but its transport
 *   overrides, each a record of those, and its `instructions` (the extra body's too), which replace the request's
 *   own: none, or text `isInstructions` admits.
 */
export function settingsCarryNoData(
  settings: ModelSettings | undefined,
  isInstructions: (text: string) => boolean,
): boolean {
  const { providerData, contextManagement, retry: _retry, ...sent } = (settings ?? {}) as Record<string, unknown>;
  if (!fieldsCarryNoData(sent)) return false;
  if (
    !isAbsent(contextManagement) &&
    !(Array.isArray(contextManagement) && contextManagement.every(recordCarriesNoData))
  )
    return false;
  if (isAbsent(providerData)) return true;
  if (!isPlainObject(providerData)) return false;
  const overrides = TRANSPORT_OVERRIDES.map((name) => providerData[name]);
  const data = Object.fromEntries(Object.entries(providerData).filter(([name]) => !TRANSPORT_OVERRIDES.includes(name)));
  return [data, ...overrides].every(
    (fields) => isAbsent(fields) || (isPlainObject(fields) && providerFieldsCarryNoData(fields, isInstructions)),
  );
}

/**
 * The request's own content, which provider data spread last would replace: the input the guard checked (Responses
 * `input`, Chat Completions `messages`) and a stored prompt with its variables. Never provider data.
 */
const REQUEST_CONTENT = ['input', 'messages', 'prompt'];

/**
 * Whether provider data's own fields, or an override's, are control options (`controlsCarryNoData`: scalars, plain
 * text, small records of control tokens), with `instructions` admitted as the agent's and none of the request's own
 * content (`REQUEST_CONTENT`).
 */
function providerFieldsCarryNoData(
  fields: Record<string, unknown>,
  isInstructions: (text: string) => boolean,
): boolean {
  const { instructions, ...others } = fields;
  return (
    REQUEST_CONTENT.every((name) => isAbsent(others[name])) &&
    (isAbsent(instructions) || (typeof instructions === 'string' && isInstructions(instructions))) &&
    carriesNoData(Object.keys(others)) &&
    controlsCarryNoData(Object.values(others))
  );
}

function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}
