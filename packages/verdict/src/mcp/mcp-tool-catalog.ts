import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import type { AnyAbility } from '@casl/ability';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { type McpInputSchema, mcpInputSchema } from './mcp-input-schema.js';
import { MCP_TOOL_NAME } from './mcp-tool-name.js';
import { VERDICT_MCP_OPTIONS, type VerdictMcpOptions } from './verdict-mcp-options.interface.js';

/** An exposed capability, as MCP clients see it. */
export interface McpTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: McpInputSchema;
  readonly definition: CapabilityDefinition;
}

/**
 * The capabilities the application exposes as MCP tools, checked at boot (each known, with an executor, an
 * object schema and a unique valid name), and which of them an actor's ability may use.
 */
@Injectable()
export class McpToolCatalog implements OnModuleInit, OnApplicationBootstrap {
  private tools: ReadonlyMap<string, McpTool> | undefined;

  constructor(
    private readonly registry: CapabilityRegistry,
    @Inject(VERDICT_MCP_OPTIONS) private readonly options: VerdictMcpOptions,
  ) {}

  onModuleInit(): void {
    // `forRoot` takes `path` out of the options; a `forRootAsync` factory's is never read (the route is made when the
    // module is declared, before any factory runs), so the endpoint would be served at the default path (ADR 0206).
    if ((this.options as { path?: unknown }).path !== undefined)
      throw new VerdictConfigurationError(
        '`path` is not an option the factory can return: it is the route of the endpoint, made when the module is declared, so pass it beside useFactory (VerdictMcpModule.forRootAsync({ path, useFactory })), and leave it out of what the factory returns.',
        { option: 'path' },
      );
  }

  onApplicationBootstrap(): void {
    this.all();
  }

  /**
   * The tools `ability` may use: CASL `can(action, subject)` on the capability's subject type. The pipeline still
   * decides each call on its re-resolved target.
   */
  visibleTo(ability: AnyAbility): ReadonlyMap<string, McpTool> {
    const visible = new Map<string, McpTool>();
    for (const [name, tool] of this.all())
      if (ability.can(tool.definition.action, tool.definition.subject)) visible.set(name, tool);
    return visible;
  }

  private all(): ReadonlyMap<string, McpTool> {
    this.tools ??= this.build();
    return this.tools;
  }

  private build(): ReadonlyMap<string, McpTool> {
    const tools = new Map<string, McpTool>();
    for (const declared of this.options.tools) {
      const {
        capability,
        name = capability,
        description,
      } = typeof declared === 'string' ? { capability: declared } : declared;
      const definition = this.registry.find(capability);
      if (definition === undefined)
        throw new VerdictConfigurationError(
          `MCP tool "${name}" names unknown capability "${capability}". Declare it with @Capability or defineCapability.`,
          { capability },
        );
      if (definition.executor === null)
        throw new VerdictConfigurationError(
          `MCP tool "${name}" names capability "${capability}", which has no executor (${definition.declaredAt}).`,
          { capability },
        );
      if (!MCP_TOOL_NAME.test(name) || tools.has(name))
        throw new VerdictConfigurationError(
          `MCP tool name "${name}" is ${tools.has(name) ? 'used twice' : 'not a valid MCP tool name (letters, digits, _, -, .; at most 128)'}.`,
          { capability },
        );
      const inputSchema = mcpInputSchema(capability, definition.arguments);
      tools.set(name, { name, description: description ?? definition.description, inputSchema, definition });
    }
    return tools;
  }
}
