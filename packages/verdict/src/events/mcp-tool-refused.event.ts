import type { McpPinStatus } from '../mcp/mcp-tool-pin.js';

/**
 * Emitted (through @nestjs/event-emitter, event name {@link McpToolRefused.event}) when a tool an MCP server lists
 * is not handed to the agent: never pinned, its description or input schema is no longer the pinned one (a rug
 * pull), its definition cannot be fingerprinted (`unpinnable`), or the server lists its name more than once
 * (`duplicate`, one event per listing). Carries the server's and the tool's names and fingerprints, never the
 * description text, nor a tool name outside MCP's tool-name rule. The tool stays refused until an operator reviews
 * it and re-pins it (`verdict mcp diff`, `verdict mcp pin`), or, `duplicate`, until the server lists it once.
 */
export class McpToolRefused {
  static readonly event = 'verdict.mcp_tool_refused';

  constructor(
    /** The server's name, as the application named it (`mcp:<server>`). */
    readonly server: string,
    /**
     * The tool's name as the server lists it when it keeps MCP's tool-name rule (`[A-Za-z0-9_.-]`, 1 to 128
     * characters), otherwise `unknown:<sha256(name)>` (the SHA-256 of the name's text, `fingerprintString`, as evidence
     * names a capability the model made up): the server's text never reaches an application's logs.
     */
    readonly tool: string,
    readonly status: Exclude<McpPinStatus, 'pinned'>,
    /** `sha256(JCS(description))` of the pinned tool, `null` for a tool never pinned. */
    readonly pinnedDescriptionFingerprint: string | null,
    /** `sha256(JCS(description))` of the tool as it is listed now. */
    readonly currentDescriptionFingerprint: string,
    readonly occurredAt: Date,
  ) {}
}
