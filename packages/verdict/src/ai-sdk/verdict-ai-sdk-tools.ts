import { Inject, Injectable } from '@nestjs/common';
import type { Tool } from 'ai';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { PublicMessage } from '../public-message.js';
import { CapabilityToolRunner } from '../runtimes/capability-tool-runner.js';
import { RuntimeProvenance } from '../runtimes/runtime-provenance.js';
import { aiSdkBoundTool } from './ai-sdk-bound-tool.js';

/** How a bound AI SDK tool presents itself. */
export interface AiSdkToolOptions {
  /** The tool's key in your tool set, for boot errors and `verdict validate`. Default: the capability name. */
  readonly name?: string;
  /** Default: the capability's description. */
  readonly description?: string;
}

/**
 * Makes Vercel AI SDK tools that go through Verdict. Bindings made before the application finishes booting
 * are checked at bootstrap: an unknown capability, or one without executor, stops boot.
 *
 * @example
 * const tools = { cancel_order: aiTools.bound('orders.cancel', { name: 'cancel_order' }) };
 * const result = await contexts.run(actionContext, () => generateText({ model, tools, messages, stopWhen: stepCountIs(5) }));
 */
@Injectable()
export class VerdictAiSdkTools {
  constructor(
    private readonly pipeline: VerdictPipeline,
    private readonly registry: CapabilityRegistry,
    @Inject(PublicMessage) private readonly publicMessage: string,
    private readonly provenance: RuntimeProvenance,
  ) {}

  /**
   * An AI SDK tool running `capability`'s full pipeline and executor. A refusal is the tool's result (the
   * public `not_executed` answer); an application fault rejects the generation with an `ApplicationFaultError`;
   * a call that requires confirmation (the capability's own, or its provenance policy's) asks for approval
   * (`needsApproval`), decided by its receipt.
   */
  bound(capability: string, options: AiSdkToolOptions = {}): Tool<unknown, string> {
    const name = options.name ?? capability;
    this.registry.requireBindable(capability, name);
    const { pipeline, registry, publicMessage } = this;
    const { windows, labeller } = this.provenance;
    const runner = new CapabilityToolRunner({
      capability,
      name,
      runtime: 'an AI SDK tool',
      pipeline,
      registry,
      publicMessage,
      provenance: { windows, labeller },
    });
    const made = aiSdkBoundTool(runner, options.description);
    this.registry.recordTool(made, { tool: name, capability, kind: 'bound' });
    return made;
  }
}
