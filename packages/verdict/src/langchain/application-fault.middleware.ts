import { createMiddleware } from 'langchain';
import { FAULTS_PROPAGATE } from './application-fault-propagation.js';

/**
 * A langchain v1 agent middleware that lets application faults out of the agent. By default
 * `createAgent` turns a tool's exception into an error ToolMessage, so the model reads the fault's text
 * (messages, sometimes stack traces) and the run carries on. Verdict's bound and guarded tools no
 * longer need it — their faults fail the run by themselves (ADR 0014) — but it does the same for every
 * other tool of the agent: `agent.invoke` rejects with the original error. Verdict's policy outcomes are
 * never exceptions (denials are `not_executed` answers), so what propagates is a real fault (a
 * resolver's database error, `MissingActionContextError`, `EvidenceWriteFailedError`).
 *
 * @example
 * createAgent({ model, tools, middleware: [applicationFaultMiddleware()] })
 */
export function applicationFaultMiddleware() {
  // Any wrapToolCall hook takes over error handling from the ToolNode; passing the call through and
  // not catching makes the original error reject the run. The mark tells Verdict's tools that their
  // faults may propagate as they are.
  return createMiddleware({
    name: 'VerdictApplicationFaults',
    wrapToolCall: (request, handler) => handler({ ...request, toolCall: Object.assign({ ...request.toolCall }, { [FAULTS_PROPAGATE]: true }) }),
  });
}
