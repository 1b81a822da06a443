import { Inject, Injectable } from '@nestjs/common';
import type { FunctionTool } from '@openai/agents';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { PublicMessage } from '../public-message.js';
import { CapabilityToolRunner } from '../runtimes/capability-tool-runner.js';
import { RuntimeProvenance } from '../runtimes/runtime-provenance.js';
import { agentsBoundTool } from './agents-bound-tool.js';

/** How a bound OpenAI Agents tool presents itself. */
export interface AgentsToolOptions {
  /**
   * The function tool's name, spelled as the SDK spells it: every character outside `[A-Za-z0-9]` as `_`
   * (`lookup-order` → `lookup_order`, the name the model sees and tool results carry). Default: the capability name,
   * spelled so (a configuration error when it would name another declared capability's tool too: name it here).
   */
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
    private readonly provenance: RuntimeProvenance,
  ) {}

  /**
   * A function tool running `capability`'s full pipeline and executor. A refusal is the tool's output (the
   * public `not_executed` answer); an application fault fails the run with an `ApplicationFaultError`; a
   * call that requires confirmation (the capability's own, or its provenance policy's) interrupts the run for
   * approval, decided by its receipt.
   */
  bound(capability: string, options: AgentsToolOptions = {}): FunctionTool {
    this.registry.assertBooted();
    const name = options.name === undefined ? this.defaultName(capability) : toolName(options.name);
    this.registry.requireBindable(capability, name);
    const { pipeline, registry, publicMessage } = this;
    const runtime = 'an OpenAI Agents tool';
    const { windows, labeller } = this.provenance;
    const provenance = { windows, labeller };
    const runner = new CapabilityToolRunner({
      capability,
      name,
      runtime,
      pipeline,
      registry,
      publicMessage,
      provenance,
    });
    const made = agentsBoundTool(runner, name, options.description);
    this.registry.recordTool(made, { tool: name, capability, kind: 'bound' });
    return made;
  }

  /**
   * The capability name as a tool name ({@link toolName}); when that changed it, a configuration
   * error if another declared capability reads the same (`orders.cancel` beside `orders_cancel`): the model would
   * call one tool name for two capabilities, and the runtime would run whichever it finds first.
   */
  private defaultName(capability: string): string {
    const name = toolName(capability);
    if (name === capability) return name;
    const other = this.registry
      .all()
      .find((definition) => definition.name !== capability && toolName(definition.name) === name);
    if (other !== undefined)
      throw new VerdictConfigurationError(
        `Capabilities "${capability}" and "${other.name}" both make the OpenAI Agents tool name "${name}": pass { name } to VerdictAgentsTools.bound.`,
        { capability },
      );
    return name;
  }
}

/**
 * `name` as the SDK's `tool()` renames a function tool: every character outside `[A-Za-z0-9]` (hyphens and spaces too)
 * as `_`. Spelled so here, the name Verdict records and checks is the one the model calls.
 */
function toolName(name: string): string {
  return name.replace(/[^A-Za-z0-9]/g, '_');
}
