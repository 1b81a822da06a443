import { Injectable } from '@nestjs/common';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { ActionContextStore, type DecisionRecord, fingerprintString } from '@verdict/nestjs';
import { VerdictTools } from '@verdict/nestjs/langchain';
import { DecisionRecordEntity } from '@verdict/nestjs/typeorm';
import {
  type CapturedToolCall,
  Order,
  StorefrontCapability,
  StorefrontContexts,
  capturedProposals,
  createLookupOrderTool,
  manuallySecuredLookupOrder,
} from '@verdict/storefront';
import { DataSource } from 'typeorm';
import { type LabOutcome, outcomeOf } from './lab-outcome.js';

/** One path's answer to one proposal. */
export interface PathResult {
  readonly outcome: LabOutcome;
  /** Exactly what the model would read back from the tool. */
  readonly modelSaw: string;
}

/** One captured proposal through the three paths. */
export interface ComparisonCase {
  readonly proposal: CapturedToolCall;
  readonly orderOwner: number;
  readonly naive: PathResult;
  readonly manual: PathResult;
  readonly verdict: PathResult & {
    readonly evidence: readonly Pick<
      DecisionRecord,
      'stage' | 'disposition' | 'reason' | 'argumentsFingerprint' | 'toolCallFingerprint'
    >[];
  };
}

/**
 * "Customer 72 asks for order 1001 (owned by 91)": the same captured tool call through (a) the naive
 * raw LangChain tool, (b) a tool secured by hand with a scoped query, (c) the Verdict bound tool — and
 * the owned order 1002 through the same three.
 */
@Injectable()
export class CrossCustomerComparison {
  private readonly naive: StructuredToolInterface;
  private readonly manual: StructuredToolInterface;
  private readonly bound: StructuredToolInterface;

  constructor(
    private readonly dataSource: DataSource,
    private readonly contexts: ActionContextStore,
    tools: VerdictTools,
  ) {
    const definition = createLookupOrderTool(dataSource);
    this.naive = definition;
    this.manual = manuallySecuredLookupOrder(dataSource, () => contexts.current());
    this.bound = tools.bound(definition, StorefrontCapability.ViewOrder);
  }

  /** Runs both proposals through all three paths as customer 72 of acme. */
  async run(): Promise<{ actor: { customerId: number; tenant: string }; cases: ComparisonCase[] }> {
    const cases = [];
    for (const proposal of [capturedProposals.crossCustomerView, capturedProposals.ownedView])
      cases.push(await this.compare(proposal));
    const { actor, tenant } = StorefrontContexts.customer72;
    return { actor: { customerId: actor.customerId, tenant: tenant! }, cases };
  }

  private async compare(proposal: CapturedToolCall): Promise<ComparisonCase> {
    const orderId = proposal.args.orderId as number;
    const order = await this.dataSource.getRepository(Order).findOneByOrFail({ id: orderId });
    const { actor, tenant } = StorefrontContexts.customer72;
    const owns = order.customerId === actor.customerId && order.tenantId === tenant;
    const through = async (tool: StructuredToolInterface): Promise<PathResult> => {
      const message = await this.contexts.run(StorefrontContexts.customer72, () =>
        tool.invoke({ ...proposal, type: 'tool_call' }),
      );
      const modelSaw = String(message.content);
      return { outcome: outcomeOf(modelSaw, orderId, owns), modelSaw };
    };
    const naive = await through(this.naive);
    const manual = await through(this.manual);
    const verdict = await through(this.bound);
    return {
      proposal,
      orderOwner: order.customerId,
      naive,
      manual,
      verdict: { ...verdict, evidence: await this.latestEvidence(proposal.id) },
    };
  }

  /** The decision records of the most recent Verdict run of this tool call (found by its fingerprint). */
  private async latestEvidence(toolCallId: string) {
    const records = this.dataSource.getRepository(DecisionRecordEntity);
    const latest = await records.findOne({
      where: { toolCallFingerprint: fingerprintString(toolCallId) },
      order: { recordedAt: 'DESC' },
    });
    if (latest === null) return [];
    const trail = await records.find({ where: { correlationId: latest.correlationId }, order: { sequence: 'ASC' } });
    return trail.map(({ stage, disposition, reason, argumentsFingerprint, toolCallFingerprint }) => ({
      stage,
      disposition,
      reason,
      argumentsFingerprint,
      toolCallFingerprint,
    }));
  }
}
