import { createMiddleware } from 'langchain';

/**
 * A langchain v1 agent middleware that lets application faults out of the agent. By default
 * `createAgent` turns a tool's exception into an error ToolMessage, so the model reads the fault's text
 * (messages, sometimes stack traces) and the run carries on. Verdict's bound and guarded tools do not
 * need it — their faults fail the run by themselves, as an `ApplicationFaultError` (ADR 0014) —
 * but it does the same for every other tool of the agent: `agent.invoke` rejects with the tool's error.
 * Verdict's policy outcomes are never exceptions (denials are `not_executed` answers), so what
 * propagates is a real fault (a resolver's database error, `MissingActionContextError`,
 * `EvidenceWriteFailedError`), carried by an `ApplicationFaultError` when a Verdict tool raised it.
 *
 * It changes nothing in the error: a middleware that catches tool errors and answers the model (inside
 * it or outside it), or `toolRetryMiddleware` with its default `onFailure: 'continue'`, still does, and
 * the run carries on — it reads the fixed message of a Verdict tool's `ApplicationFaultError`, but the
 * raw error of any other tool. Place it first, and such middleware nowhere in a Verdict agent.
 *
 * @example
 * createAgent({ model, tools, middleware: [applicationFaultMiddleware()] })
 */
export function applicationFaultMiddleware() {
  // Any wrapToolCall hook takes over error handling from the ToolNode: an error that leaves the hook
  // rejects the run. The error passes through as it is — a Verdict tool's ApplicationFaultError stays
  // opaque to every middleware around it. (Rethrowing its cause would not do: langchain wraps an error a
  // hook throws in a MiddlewareError that copies the cause's message, for the middleware outside to read.)
  return createMiddleware({
    name: 'VerdictApplicationFaults',
    wrapToolCall: (request, handler) => handler(request),
  });
}
