import { Inject, Injectable } from '@nestjs/common';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { PublicMessage } from '../public-message.js';
import { VerdictBoundTool } from './verdict-bound-tool.js';
import { VerdictGuardedTool } from './verdict-guarded-tool.js';

/**
 * Makes LangChain tools that go through Verdict. Bindings made before the application finishes booting
 * are checked at bootstrap: an unknown capability, or a bound capability without executor, stops boot.
 *
 * @example
 * const tools = [verdictTools.bound(lookupOrderTool, 'orders.view'), verdictTools.bound(cancelOrderTool, 'orders.cancel')];
 * // A resolver's database error rejects the run instead of reaching the model (ADR 0014);
 * // applicationFaultMiddleware does the same for the agent's other tools.
 * const agent = createAgent({ model, tools, middleware: [applicationFaultMiddleware()] });
 */
/** How a bound tool presents itself to the model. */
export interface BoundToolOptions {
  /** Default: the definition tool's name. */
  readonly name?: string;
  /** Default: the definition tool's description. */
  readonly description?: string;
}

@Injectable()
export class VerdictTools {
  constructor(
    private readonly pipeline: VerdictPipeline,
    private readonly registry: CapabilityRegistry,
    @Inject(PublicMessage) private readonly publicMessage: string,
  ) {}

  /**
   * A tool with `definition`'s name, description and schema whose invocation runs `capability`'s full
   * pipeline and executor. `options` override the model-facing name and description.
   */
  bound(definition: StructuredToolInterface, capability: string, options: BoundToolOptions = {}): VerdictBoundTool {
    const presented = {
      name: options.name ?? definition.name,
      description: options.description ?? definition.description,
      schema: definition.schema,
    };
    this.registry.requireBindable(capability, presented.name);
    const tool = new VerdictBoundTool(presented, capability, this.pipeline, this.publicMessage);
    this.registry.recordTool(tool, { tool: presented.name, capability, kind: 'bound' });
    return tool;
  }

  /**
   * Checks, without making a tool, what {@link bound} checks: that a tool named `tool` may be bound to `capability`
   * (declared, with an executor). `pinnedMcpTools` checks every route this way, whether its tool is handed over or not.
   * @throws VerdictConfigurationError for an unknown capability or one without an executor (before boot completes,
   *   the check is made at boot).
   */
  requireBindable(tool: string, capability: string): void {
    this.registry.requireBindable(capability, tool);
  }

  /** Wraps an existing tool: `capability`'s proposal checks run before the tool's own handler (migration bridge). */
  guarded(tool: StructuredToolInterface, capability: string): VerdictGuardedTool {
    this.registry.requireBindable(capability, tool.name, false);
    const guarded = new VerdictGuardedTool(tool, capability, this.pipeline, this.publicMessage);
    this.registry.recordTool(guarded, { tool: tool.name, capability, kind: 'guarded' });
    return guarded;
  }
}
