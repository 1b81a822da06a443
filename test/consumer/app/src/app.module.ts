import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Command, MemorySaver } from '@langchain/langgraph';
import {
  Body,
  type CanActivate,
  ConflictException,
  Controller,
  type DynamicModule,
  type ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  Module,
  Param,
  Post,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import {
  type ActionContext,
  ActionContextInterceptor,
  ActionContextStore,
  ApprovalEndpoint,
  ApprovalRequest,
  ApprovalService,
  InMemoryApprovalReceiptStore,
  type EvidenceRecorder,
  VerdictModule,
  type VerifiedApprovalRequest,
} from '@verdict/nestjs';
import {
  VerdictLangChainModule,
  VerdictTools,
  applicationFaultMiddleware,
  approveToolCall,
} from '@verdict/nestjs/langchain';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { type HelpdeskUser, TicketCapabilities, TicketRepository, abilities } from './tickets.js';

export const CHAT_MODEL = Symbol('CHAT_MODEL');

/** Stands in for authentication: `x-user: alice:customer` signs alice in as a customer. */
@Injectable()
export class SignedIn implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest();
    const [id, role] = String(req.headers['x-user'] ?? '').split(':');
    if (id && (role === 'customer' || role === 'support')) req.user = { id, role } satisfies HelpdeskUser;
    return true;
  }
}

/** The chat store: who owns each conversation. */
export const conversations = new Map<string, string>([
  ['c-alice', 'alice'],
  ['c-bob', 'bob'],
]);

/** The action context of a conversation, from the chat store: its owner, in it. */
export function conversationContext(conversationId: string): ActionContext | null {
  const owner = conversations.get(conversationId);
  return owner === undefined
    ? null
    : { actor: { id: owner, role: 'customer' }, tenant: 'acme', metadata: { conversationId } };
}

export interface AgentAnswer {
  readonly interrupts: unknown[];
  readonly answer: string;
}

/** The helpdesk agent: a LangChain createAgent loop whose two tools are bound to Verdict capabilities. */
@Injectable()
export class Assistant {
  private agent?: ReturnType<typeof this.createAgent>;

  constructor(
    private readonly tools: VerdictTools,
    private readonly contexts: ActionContextStore,
    @Inject(CHAT_MODEL) private readonly model: BaseChatModel,
  ) {}

  /** Runs a turn in the current action context (the request's, bound by ActionContextInterceptor). */
  chat(conversationId: string, message: string): Promise<AgentAnswer> {
    return this.run(this.getAgent().invoke({ messages: [new HumanMessage(message)] }, this.config(conversationId)));
  }

  /** Resumes the paused run in the requester's context (docs/approvals.md §5), with the explicit approval of one call. */
  resume(requester: ActionContext, toolCallId: string): Promise<AgentAnswer> {
    const conversationId = String(requester.metadata?.conversationId);
    return this.contexts.run(requester, () =>
      this.run(
        this.getAgent().invoke(new Command({ resume: approveToolCall(toolCallId) }), this.config(conversationId)),
      ),
    );
  }

  private async run(invocation: Promise<{ messages: { content: unknown }[] }>): Promise<AgentAnswer> {
    const state = (await invocation) as { messages: { content: unknown }[]; __interrupt__?: { value: unknown }[] };
    return {
      interrupts: (state.__interrupt__ ?? []).map((i) => i.value),
      answer: String(state.messages.at(-1)?.content ?? ''),
    };
  }

  private config(conversationId: string) {
    return { configurable: { thread_id: conversationId } };
  }

  private getAgent() {
    return (this.agent ??= this.createAgent());
  }

  private createAgent() {
    const schema = z.object({ ticketId: z.number().int().positive() });
    const neverRuns = async (): Promise<string> => {
      throw new Error('a bound tool never calls its definition');
    };
    const viewTicket = tool(neverRuns, { name: 'view_ticket', description: 'Show a support ticket', schema });
    const closeTicket = tool(neverRuns, { name: 'close_ticket', description: 'Close a support ticket', schema });
    return createAgent({
      model: this.model,
      tools: [this.tools.bound(viewTicket, 'tickets.view'), this.tools.bound(closeTicket, 'tickets.close')],
      checkpointer: new MemorySaver(),
      middleware: [applicationFaultMiddleware()],
    });
  }
}

@Controller('chat/:conversationId')
@UseGuards(SignedIn)
@UseInterceptors(ActionContextInterceptor)
export class ChatController {
  constructor(private readonly assistant: Assistant) {}

  @Post()
  chat(@Param('conversationId') conversationId: string, @Body() body: { message: string }): Promise<AgentAnswer> {
    if (conversationContext(conversationId) === null) throw new ForbiddenException();
    return this.assistant.chat(conversationId, body.message);
  }
}

@Controller('approvals/:conversationId')
@UseGuards(SignedIn)
export class ApprovalsController {
  constructor(
    private readonly approvals: ApprovalService,
    private readonly assistant: Assistant,
  ) {}

  @Post(':toolCallId/approve')
  @ApprovalEndpoint()
  async approve(
    @ApprovalRequest() { challenge, approver, requester }: VerifiedApprovalRequest,
  ): Promise<AgentAnswer & { outcome: string }> {
    const transition = await this.approvals.approve(challenge.receiptId, challenge.toolCallId, approver.id);
    if (transition.outcome !== 'approved') throw new ConflictException();
    return { outcome: transition.outcome, ...(await this.assistant.resume(requester, challenge.toolCallId)) };
  }
}

function userOf(context: ExecutionContext): HelpdeskUser | undefined {
  return context.switchToHttp().getRequest().user;
}

@Module({})
export class AppModule {
  static register({ model, evidence }: { model: BaseChatModel; evidence: EvidenceRecorder }): DynamicModule {
    return {
      module: AppModule,
      imports: [
        VerdictModule.forRoot({
          abilityFactory: abilities,
          evidence,
          approvals: new InMemoryApprovalReceiptStore(),
          publicMessage: 'That is not possible here.',
          resolveContext: (http) => {
            const user = userOf(http);
            if (user === undefined) throw new ForbiddenException();
            return {
              actor: user,
              tenant: 'acme',
              metadata: { conversationId: http.switchToHttp().getRequest().params.conversationId },
            };
          },
          approvalEndpoint: {
            approver: (http) => {
              const user = userOf(http);
              return user === undefined ? null : { id: `user:${user.id}`, context: { actor: user, tenant: 'acme' } };
            },
            requester: (_approver, _toolCallId, http) =>
              conversationContext(http.switchToHttp().getRequest().params.conversationId),
            canAccessToolCall: (approver, _toolCallId, _http, requester) =>
              approver.context.actor.role === 'support' || requester.actor.id === approver.context.actor.id,
          },
        }),
        VerdictLangChainModule,
      ],
      controllers: [ChatController, ApprovalsController],
      providers: [TicketRepository, TicketCapabilities, Assistant, { provide: CHAT_MODEL, useValue: model }],
    };
  }
}
