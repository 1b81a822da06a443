import { Injectable } from '@nestjs/common';

/** An agent the application registered for the wiring audit: its name and every tool it holds. */
export interface RegisteredAgent {
  readonly name: string;
  readonly tools: readonly { readonly name: string }[];
}

/**
 * Where the application names its agents and their tools, so `verdict validate` can check that each tool
 * went through `VerdictTools` (bound or guarded). Provided by `VerdictAuditModule`.
 *
 * @example
 * const tools = [verdictTools.bound(lookupOrderTool, 'orders.view')];
 * agents.register('support', tools);
 * const agent = createAgent({ model, tools });
 */
@Injectable()
export class VerdictAgents {
  private readonly agents: RegisteredAgent[] = [];

  /** Records agent `name` holding `tools` (the same array you give the agent). */
  register(name: string, tools: readonly { readonly name: string }[]): void {
    this.agents.push({ name, tools: [...tools] });
  }

  /** Every registered agent, in registration order. */
  all(): readonly RegisteredAgent[] {
    return [...this.agents];
  }
}
