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
 * const agent = createAgent({ model, tools });
 */
@Injectable()
export class VerdictTools {
  constructor(
    private readonly pipeline: VerdictPipeline,
    private readonly registry: CapabilityRegistry,
    @Inject(PublicMessage) private readonly publicMessage: string,
  ) {}

  /** A tool with `definition`'s name, description and schema whose invocation runs `capability`'s full pipeline and executor. */
  bound(definition: StructuredToolInterface, capability: string): VerdictBoundTool {
    this.registry.requireBindable(capability, definition.name);
    return new VerdictBoundTool(definition, capability, this.pipeline, this.publicMessage);
  }

  /** Wraps an existing tool: `capability`'s proposal checks run before the tool's own handler (migration bridge). */
  guarded(tool: StructuredToolInterface, capability: string): VerdictGuardedTool {
    this.registry.requireBindable(capability, tool.name, false);
    return new VerdictGuardedTool(tool, capability, this.pipeline, this.publicMessage);
  }
}
