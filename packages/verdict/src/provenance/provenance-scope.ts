import { AsyncLocalStorage } from 'node:async_hooks';
import { Trust } from '../context-release/trust.js';
import type { LabelledContent } from './labelled-content.js';
import { ProvenanceWindow } from './provenance-window.js';

/**
 * One agent's tool call, as a window is made for it (ADR 0040): the agent run's task (an object LangGraph makes
 * per task, which the tool node hands both the middleware and the tool it invokes) and the call's id. Providers that number ids per response reuse `call_0` in every agent, so the id alone does not
 * tell an inner agent's call from the outer one.
 */
export interface ProvenanceToolCall {
  readonly run: object | undefined;
  readonly id: string;
}

/** A window on its way down the call stack, and what the calls under it hand back up. */
class ProvenanceScope {
  /** Answers of tracked agents that ran inside this scope (an agent used as a tool, a delegation). */
  readonly carried: LabelledContent[] = [];
  /** Whether a bound call ran inside this scope with a window Verdict did not see (an agent without a tracker). */
  carriedUnobserved = false;
  /**
   * The tool calls a tracked agent's model proposed inside this scope whose results no tracked model call here has read
   * yet, by call id: what each result would carry (ADR 0211). A sub-agent whose run ends on such a call hands its
   * caller a result no observed model read.
   */
  readonly unread = new Map<string, readonly LabelledContent[]>();

  constructor(
    readonly window: ProvenanceWindow,
    /** The tool call the window was made for; `undefined` for a window the application supplies itself. */
    readonly call: ProvenanceToolCall | undefined,
  ) {}
}

const scopes = new AsyncLocalStorage<ProvenanceScope>();
const invocations = new AsyncLocalStorage<ProvenanceToolCall>();

/**
 * Runs `fn` with `window` as the context window of every proposal made inside it. The LangChain provenance
 * tracker does this for each tool call; application code that executes a proposal on an agent's behalf
 * passes the window the agent saw.
 *
 * @example await withProvenance(window, () => verdict.execute({ capability: 'payments.send', arguments, toolCallId }));
 */
export function withProvenance<T>(window: ProvenanceWindow, fn: () => T): T {
  return scopes.run(new ProvenanceScope(window, undefined), fn);
}

/**
 * Runs `fn` outside its caller's window and tool call: proposals made inside it have no window, so every kind but
 * the principal's own request is unobserved. An MCP server's request runs this way; over an in-memory connection
 * its handler would otherwise inherit the async context of whoever called the client (ADR 0131).
 */
export function outsideProvenance<T>(fn: () => T): T {
  return scopes.exit(() => invocations.exit(fn));
}

/** What a tracked tool call handed back up: its result, and the answers of the agents that ran inside it. */
export interface ToolCallOutcome<T> {
  readonly result: T;
  /**
   * The labels of tracked agents' answers given inside the call, the untrusted labels of their tools' results no
   * tracked model call there read (ADR 0211), and an unobserved item if an untracked agent's bound call ran there.
   */
  readonly carried: readonly LabelledContent[];
}

/**
 * Runs one agent's tool call with the window it was proposed in, for that call only (the provenance tracker's
 * `wrapToolCall`): a bound or guarded tool run by another agent inside it — a sub-agent — does not see it.
 */
export async function withToolCallProvenance<T>(
  window: ProvenanceWindow,
  call: ProvenanceToolCall,
  fn: () => T | Promise<T>,
): Promise<ToolCallOutcome<T>> {
  const scope = new ProvenanceScope(window, call);
  const result = await scopes.run(scope, fn);
  const unread = [...scope.unread.values()].flat();
  const carried = scope.carriedUnobserved
    ? [...scope.carried, ...unread, ...ProvenanceWindow.unobserved().items]
    : [...scope.carried, ...unread];
  return { result, carried };
}

/**
 * Runs one tool call of a runtime whose tools run outside its tracker (AI SDK, OpenAI Agents) as a call of its own
 * (a fresh call object: no other tool call is the same, whatever id a provider numbered it with): in `window` for that
 * call only, as {@link withToolCallProvenance} runs a LangChain call, or, without a window, unobserved whatever window
 * encloses it. An agent started inside never proposes in the enclosing window.
 */
export async function runToolCall<T>(
  window: ProvenanceWindow | undefined,
  id: string,
  fn: () => Promise<T>,
): Promise<ToolCallOutcome<T>> {
  const call: ProvenanceToolCall = { run: {}, id };
  if (window !== undefined) return withToolCallProvenance(window, call, () => asToolCall(call, fn));
  const enclosing = scopes.getStore();
  if (enclosing?.call !== undefined) enclosing.carriedUnobserved = true;
  return withToolCallProvenance(ProvenanceWindow.unobserved(), call, () => asToolCall(call, fn));
}

/**
 * Runs a bound or guarded tool's own invocation: proposals made inside it belong to `call`. A call no tracker made a
 * window for (an agent without a tracker) runs in an unobserved window for that call: inside another tool call's
 * window it is an untracked sub-agent's call, whose result is then untrusted, and an agent started in its executor
 * reads its input, which that untracked model wrote, as unobserved. So is an invocation with no tool call of its own
 * (`undefined`: a hand-rolled loop invoking the tool with its arguments alone) inside a tool call's window; outside
 * one (the application's own code, in its own window or none) it runs as it is.
 */
export function asToolCall<T>(call: ProvenanceToolCall | undefined, fn: () => T): T {
  const scope = scopes.getStore();
  if (call === undefined && scope?.call === undefined) return fn();
  if (call !== undefined && scope?.call !== undefined && sameCall(scope.call, call)) return invocations.run(call, fn);
  if (scope?.call !== undefined) scope.carriedUnobserved = true;
  // A call of its own (a fresh object, no other call is the same) when the invocation has none.
  const own = call ?? { run: {}, id: '' };
  return scopes.run(new ProvenanceScope(ProvenanceWindow.unobserved(), own), () => invocations.run(own, fn));
}

/**
 * Hands a tracked agent's answer to the tool call it ran inside (a sub-agent's answer goes up to the outer
 * agent's call, whose result then carries its label). Outside any tracked tool call it does nothing.
 */
export function carryAnswer(item: LabelledContent): void {
  const scope = scopes.getStore();
  if (scope?.call !== undefined) scope.carried.push(item);
}

/**
 * A tracked agent's tool call `id`, proposed (or run) inside the tool call the caller runs in, left a result no tracked
 * model call there has read yet, which would carry `items` (ADR 0211): a sub-agent whose run ends on it (a tool that
 * stops the run, a generation that stops at its tool step) hands its caller content no observed model read. Kept by the
 * tool call, whose result carries the untrusted ones when nothing read it ({@link readResults}); none are kept for a
 * result that would carry nothing untrusted. Outside any tracked tool call it does nothing.
 */
export function leaveUnread(id: string, items: readonly LabelledContent[]): void {
  const scope = scopes.getStore();
  if (scope?.call === undefined) return;
  const untrusted = items.filter(({ label }) => label.trust === Trust.Untrusted);
  if (untrusted.length > 0) scope.unread.set(id, untrusted);
  else scope.unread.delete(id);
}

/**
 * A tracked model call inside the tool call the caller runs in read the results of the calls `ids`: they are no longer
 * unread ({@link leaveUnread}); the model's answer carries what they hold, as its window does.
 */
export function readResults(ids: Iterable<string>): void {
  const scope = scopes.getStore();
  if (scope?.call === undefined || scope.unread.size === 0) return;
  for (const id of ids) scope.unread.delete(id);
}

/**
 * The window of the tracked tool call the caller runs inside, if any: for an agent started inside another
 * agent's tool call (a sub-agent), the window its input was written in.
 */
export function enclosingToolCallWindow(): ProvenanceWindow | undefined {
  const scope = scopes.getStore();
  return scope?.call === undefined ? undefined : scope.window;
}

/**
 * The window of the proposal being run, if a caller or the tracker supplied one. A bound or guarded tool's
 * call inside a window the tracker made for another tool call — a sub-agent without a tracker of its own,
 * running inside the outer agent's call — sees an unobserved window.
 */
export function currentProvenanceWindow(): ProvenanceWindow | undefined {
  const scope = scopes.getStore();
  if (scope === undefined) return undefined;
  const call = invocations.getStore();
  if (call === undefined || scope.call === undefined || sameCall(scope.call, call)) return scope.window;
  return ProvenanceWindow.unobserved();
}

function sameCall(a: ProvenanceToolCall, b: ProvenanceToolCall): boolean {
  return a.run !== undefined && a.run === b.run && a.id === b.id;
}
