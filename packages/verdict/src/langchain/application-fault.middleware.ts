import { createMiddleware } from 'langchain';

/**
 * A langchain v1 agent middleware that lets application faults out of the agent. By default
 * `createAgent` turns a tool's exception into an error ToolMessage, so the model reads the fault's text
 * (messages, sometimes stack traces) and the run carries on. Verdict's policy outcomes are never
 * exceptions — denials are already `not_executed` answers — so what propagates here is a real fault
 * (a resolver's database error, `MissingActionContextError`, `EvidenceWriteFailedError`): `agent.invoke`
 * rejects with the original error instead.
 *
 * @example
 * createAgent({ model, tools, middleware: [applicationFaultMiddleware()] })
 */
export function applicationFaultMiddleware() {
  // Any wrapToolCall hook takes over error handling from the ToolNode; passing the call through and
  // not catching makes the original error reject the run.
  return createMiddleware({ name: 'VerdictApplicationFaults', wrapToolCall: (request, handler) => handler(request) });
}
