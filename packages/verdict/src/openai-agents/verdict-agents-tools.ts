import { Inject, Injectable } from '@nestjs/common';
import type { FunctionTool } from '@openai/agents';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { PublicMessage } from '../public-message.js';
import { CapabilityToolRunner } from '../runtimes/capability-tool-runner.js';
import { agentsBoundTool } from './agents-bound-tool.js';

/** How a bound OpenAI Agents tool presents itself. */
export interface AgentsToolOptions {
  /** The function tool's name. Default: the capability name with every character outside `[A-Za-z0-9_-]` as `_`. */
  readonly name?: string;
  /** Default: the capability's description. */
  readonly description?: string;
}

/**
 * Makes OpenAI Agents JS function tools that go through Verdict. A tool reads its capability's description
 * and schema when it is made: make tools once the application has booted (`app.init()`), in a service.
 *
 * @example
 * const agent = new Agent({ name: 'Support', instructions, tools: [agentsTools.bound('orders.cancel')] });
 * const result = await contexts.run(actionContext, () => run(agent, 'cancel order 1002'));
 */
@Injectable()
export class VerdictAgentsTools {
  constructor(
    private readonly pipeline: VerdictPipeline,
    private readonly registry: CapabilityRegistry,
    @Inject(PublicMessage) private readonly publicMessage: string,
  ) {}

  /**
   * A function tool running `capability`'s full pipeline and executor. A refusal is the tool's output (the
   * public `not_executed` answer); an application fault fails the run with an `ApplicationFaultError`; a
   * capability that requires confirmation interrupts the run for approval, decided by its receipt.
   */
  bound(capability: string, options: AgentsToolOptions = {}): FunctionTool {
    const name = options.name ?? capability.replace(/[^A-Za-z0-9_-]/g, '_');
    this.registry.assertBooted();
    this.registry.requireBindable(capability, name);
    const { pipeline, registry, publicMessage } = this;
    const runtime = 'an OpenAI Agents tool';
    const runner = new CapabilityToolRunner({ capability, name, runtime, pipeline, registry, publicMessage });
    const made = agentsBoundTool(runner, name, options.description);
    this.registry.recordTool(made, { tool: name, capability, kind: 'bound' });
    return made;
  }
}
