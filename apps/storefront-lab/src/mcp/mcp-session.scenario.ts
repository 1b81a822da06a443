import { Injectable, NotFoundException } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ActionContext } from '@verdict/nestjs';
import { McpServerFactory } from '@verdict/nestjs/mcp';
import { labReviewer } from '../review-lane/lab-reviewers.js';
import type { McpListingView } from '../runs/lab-run.js';

/** The storefront capabilities the lab serves as MCP tools (`POST /api/mcp`). */
export const LAB_MCP_TOOLS = ['orders.view', 'orders.cancel', { capability: 'orders.refund', name: 'refund_order' }];

/** The header that stands in for an MCP client's bearer token in the lab (it has no login): a lab user's id. */
export const LAB_MCP_USER_HEADER = 'x-lab-mcp-user';

/** The principal a lab MCP request names (a customer or a staff member of `LAB_REVIEWERS`), or `null` (→ 401). */
export function labMcpPrincipal(header: unknown): ActionContext | null {
  return labReviewer(header)?.context ?? null;
}

/**
 * The MCP lab: a real MCP client session (the SDK's `Client`, linked to the server the module makes for the
 * principal) lists the tools as each of two users. A customer sees the order tools their CASL rules allow; a staff
 * member, whose only ability is `review`, sees none — the tools they may not use are not even named to them.
 */
@Injectable()
export class McpSessionScenario {
  constructor(private readonly servers: McpServerFactory) {}

  /** `tools/list` as each user, in order; an unknown user is a 404 that lists nothing. */
  async listAs(users: readonly string[]): Promise<McpListingView[]> {
    const principals = users.map((user) => {
      const principal = labMcpPrincipal(user);
      if (principal === null) throw new NotFoundException(`No lab user ${JSON.stringify(user)}.`);
      return { user, principal };
    });
    const views: McpListingView[] = [];
    for (const { user, principal } of principals) views.push({ user, tools: await this.list(principal) });
    return views;
  }

  private async list(principal: ActionContext): Promise<McpListingView['tools']> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = this.servers.create(principal);
    const client = new Client({ name: 'storefront-lab', version: '1.0.0' });
    await server.connect(serverSide);
    await client.connect(clientSide);
    try {
      const { tools } = await client.listTools();
      return tools.map(({ name, description }) => ({ name, description: description ?? '' }));
    } finally {
      await client.close();
      await server.close();
    }
  }
}
