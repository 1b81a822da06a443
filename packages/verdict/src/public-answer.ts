import { Disposition } from './decisions/disposition.js';
import type { ExecutionResult } from './vocabulary/execution-result.js';
import { isPlainObject } from './shared/is-plain-object.js';

/** The four fields of Verdict's answer for a proposal that was not executed. */
export interface NotExecutedAnswer {
  readonly status: 'not_executed';
  readonly capability: string;
  readonly decision: Disposition;
  readonly message: string;
}

/**
 * The text a model may read back for a pipeline result. An executed proposal answers with the
 * executor's output (a string as it is, anything else as JSON). A proposal that was not executed answers
 * with exactly `{"status":"not_executed","capability":…,"decision":…,"message":…}`: the capability, the
 * disposition and the fixed public `message` (`publicMessage` of `VerdictModule.forRoot`; default
 * {@link DEFAULT_PUBLIC_MESSAGE}). The decision's internal reason never reaches a model: it stays in
 * evidence. Every Verdict adapter answers through this function; an application that hands results of
 * `VerdictService.execute` to a model (a queue worker, an MCP server, its own agent loop) must too.
 *
 * @example
 * const result = await verdict.execute({ capability: 'orders.cancel', arguments: { orderId: 1002 } });
 * return publicAnswer(result, publicMessage); // publicMessage: @Inject(PublicMessage)
 */
export function publicAnswer(result: ExecutionResult, message: string): string {
  if (result.executed) return typeof result.output === 'string' ? result.output : JSON.stringify(result.output ?? null);
  return notExecutedText(result.capability, result.decision.disposition, message);
}

/** The text JSON.stringify gives the four fields in this order, written out: this answer is every refusal's. */
function notExecutedText(capability: string, decision: string, message: string): string {
  return `{"status":"not_executed","capability":${JSON.stringify(capability)},"decision":${JSON.stringify(decision)},"message":${JSON.stringify(message)}}`;
}

/**
 * Reads a text as a refusal with the public `message`, byte for byte as {@link publicAnswer} writes it, else `null`:
 * what may pass as it is where only Verdict's own answer may (quarantined reading), so that no text
 * {@link readNotExecutedMessage} reads leniently — a key repeated (`JSON.parse` keeps its last value), other white
 * space — carries anything past them.
 */
export function readOwnRefusal(text: string, message: string): NotExecutedAnswer | null {
  const answer = readNotExecutedMessage(text);
  return answer !== null && text === notExecutedText(answer.capability, answer.decision, message) ? answer : null;
}

/**
 * Reads a text as Verdict's `not_executed` answer: exactly its four fields and a known disposition,
 * else `null` (an executor's output, plain text, or anything that may carry data).
 *
 * @example
 * readNotExecutedMessage(toolMessage.content)?.decision ?? 'executed'
 */
export function readNotExecutedMessage(text: string): NotExecutedAnswer | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isPlainObject(parsed)) return null;
  const { status, capability, decision, message, ...rest } = parsed as Record<string, unknown>;
  const exact =
    Object.keys(rest).length === 0 &&
    status === 'not_executed' &&
    typeof capability === 'string' &&
    typeof message === 'string' &&
    Object.values(Disposition).includes(decision as Disposition);
  return exact ? { status, capability, decision: decision as Disposition, message } : null;
}
