import { Injectable, Module } from '@nestjs/common';
import type { ActionContext } from '@verdict/nestjs';

/**
 * The tool calls this lab session proposed that wait for an approval, with the action context each was
 * proposed in: trusted server-side data, which the approval endpoint's `requester` hook reads. One instance
 * per lab session (each session is its own Nest application), never shared between browsers.
 */
@Injectable()
export class LabConversation {
  private readonly proposed = new Map<string, ActionContext>();
  private sequence = 0;

  /** A fresh tool-call id for this session, as a provider would issue one. */
  nextToolCallId(prefix: string): string {
    return `${prefix}_${++this.sequence}`;
  }

  remember(toolCallId: string, context: ActionContext): void {
    this.proposed.set(toolCallId, context);
  }

  requesterOf(toolCallId: string): ActionContext | null {
    return this.proposed.get(toolCallId) ?? null;
  }

  toolCallIds(): string[] {
    return [...this.proposed.keys()];
  }
}

/** Provides {@link LabConversation} to the lab and to Verdict's approval-endpoint hooks. */
@Module({ providers: [LabConversation], exports: [LabConversation] })
export class LabConversationModule {}
