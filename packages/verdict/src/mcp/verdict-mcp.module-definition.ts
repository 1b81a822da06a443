import { ConfigurableModuleBuilder } from '@nestjs/common';
import { mcpController } from './mcp.controller.js';
import type { VerdictMcpOptions } from './verdict-mcp-options.interface.js';

/** The route of the MCP endpoint: structural, so given beside the options, never by the async factory. */
export interface VerdictMcpExtras {
  /** Default: `'mcp'` (POST /mcp). */
  readonly path: string;
}

export const {
  ConfigurableModuleClass: ConfigurableVerdictMcpModule,
  MODULE_OPTIONS_TOKEN: VERDICT_MCP_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<VerdictMcpOptions>()
  .setClassMethodName('forRoot')
  .setExtras<VerdictMcpExtras>({ path: 'mcp' }, (definition, extras) => ({
    ...definition,
    controllers: [...(definition.controllers ?? []), mcpController(extras.path)],
  }))
  .build();
