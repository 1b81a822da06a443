import { Inject, Injectable } from '@nestjs/common';
import type { StructuredToolInterface } from '@langchain/core/tools';
import {
  type ActionContext,
  type InvocationOptions,
  ActionContextStore,
  PublicMessage,
  VerdictService,
  publicAnswer,
  readNotExecutedMessage,
} from '@verdict/nestjs';
import { EvidenceTrail } from './evidence-trail.js';
import type { CallView } from './lab-run.js';

/** The outcome of a call through a raw tool: it ran, and no policy decided anything. */
export const UNCHECKED = 'ran unchecked';

/** A tool call the lab makes: which tool, with what, on whose behalf, and where it came from. */
export interface LabCall {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly toolCallId: string;
  readonly context: ActionContext;
  readonly untrustedInput: string;
  /** Reads what changed in the world after the call. */
  readonly observe: () => Promise<string> | string;
}

/** Makes the lab's calls and reports each as a {@link CallView}, stages read back from the evidence. */
@Injectable()
export class LabCalls {
  constructor(
    private readonly contexts: ActionContextStore,
    private readonly verdict: VerdictService,
    private readonly trail: EvidenceTrail,
    @Inject(PublicMessage) private readonly publicMessage: string,
  ) {}

  /** Through a LangChain tool: a Verdict bound tool (`throughVerdict`) or a raw one the lab compares it with. */
  async viaTool(tool: StructuredToolInterface, call: LabCall, throughVerdict: boolean): Promise<CallView> {
    const message = await this.contexts.run(call.context, () =>
      tool.invoke({ name: call.tool, args: call.arguments, id: call.toolCallId, type: 'tool_call' }),
    );
    const modelSaw = String(message.content);
    const outcome = throughVerdict ? (readNotExecutedMessage(modelSaw)?.decision ?? 'executed') : UNCHECKED;
    const stages = throughVerdict ? await this.trail.latestOf(call.toolCallId) : [];
    return this.view(call, outcome, stages, modelSaw);
  }

  /** Straight through `VerdictService.execute` (a capability name as the tool), e.g. to resume an approved call. */
  async viaVerdict(call: LabCall, options: InvocationOptions = {}): Promise<CallView> {
    const result = await this.contexts.run(call.context, () =>
      this.verdict.execute(
        { capability: call.tool, arguments: { ...call.arguments }, toolCallId: call.toolCallId },
        options,
      ),
    );
    const outcome = result.executed ? 'executed' : result.decision.disposition;
    const stages = await this.trail.ofCorrelation(result.correlationId);
    return this.view(call, outcome, stages, publicAnswer(result, this.publicMessage));
  }

  private async view(call: LabCall, outcome: string, stages: CallView['stages'], modelSaw: string): Promise<CallView> {
    return {
      toolCallId: call.toolCallId,
      untrustedInput: call.untrustedInput,
      proposal: { tool: call.tool, arguments: call.arguments },
      outcome,
      stages,
      modelSaw,
      sideEffect: await call.observe(),
    };
  }
}
