import { type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { Command, MemorySaver } from '@langchain/langgraph';
import { Injectable } from '@nestjs/common';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalService,
  ModelBudgetExceededError,
  readNotExecutedMessage,
} from '@verdict/nestjs';
import {
  type ApprovalInterrupt,
  ProvenanceTrackers,
  QuarantinedReaders,
  VerdictTools,
  approveToolCall,
  rejectToolCall,
} from '@verdict/nestjs/langchain';
import { InjectionFollowingChatModel, type ScriptStep, type ScriptedTurn } from '@verdict/nestjs/testing/langchain';
import { definitionOnlyTool } from '@verdict/storefront';
import { createAgent } from 'langchain';
import type { BillConfirmationView, BillRunView, LabActor, PayBillLabView } from '../runs/lab-run.js';
import { labContext } from '../session/lab-actors.js';
import { LabConversation } from '../session/lab-conversation.js';
import {
  BILL_ORDER_ID,
  type Bill,
  LEGITIMATE_BILL,
  PAY_BILL_TOOL,
  READ_ATTACHMENT_TOOL,
  billSchema,
  fileTextOf,
  readBillLines,
} from './bill-file.js';
import {
  BillCapability,
  BillPaymentCapabilities,
  attachmentArguments,
  billPaymentArguments,
} from './bill-payment.capabilities.js';
import { BillReadingQuarantinedModel } from './bill-reading-quarantined-model.js';
import { CUSTOMER_APPROVAL_SCREEN } from './bill-release-policies.js';

/** What the lab user sets: who asks, the file's text, and whether the quarantined model is misled by it. */
export interface PayBillRequest {
  readonly actor: LabActor;
  readonly file: string;
  readonly quarantinedModelMisled: boolean;
}

/** The customer's message, as the deciding model receives it. */
export const PAY_BILL_MESSAGE = `Please pay the repair bill I uploaded to order ${BILL_ORDER_ID}.`;

const textOf = (message: BaseMessage) =>
  typeof message.content === 'string' ? message.content : JSON.stringify(message.content);

/**
 * "Pay the bill in a file", with and without quarantine (docs/quarantine.md): the lab assistant — a real
 * `createAgent` loop on a scripted chat model that obeys instruction lines it reads, as a manipulated model
 * would — reads the bill the customer uploaded and pays it. Without quarantine it reads the file's text,
 * instruction included; with quarantine it gets a handle, asks the quarantined model for a typed bill, and pays
 * with the extracted value, which keeps the file's label. Either way the payment's IBAN and amount ask the
 * customer first (`require_confirmation`): their approval screen shows the text the value came from, and they
 * approve only the repair shop's bill they expect.
 */
@Injectable()
export class PayBillInFileScenario {
  constructor(
    private readonly contexts: ActionContextStore,
    private readonly trackers: ProvenanceTrackers,
    private readonly readers: QuarantinedReaders,
    private readonly tools: VerdictTools,
    private readonly approvals: ApprovalService,
    private readonly bills: BillPaymentCapabilities,
    private readonly quarantined: BillReadingQuarantinedModel,
    private readonly conversation: LabConversation,
  ) {}

  /** Both runs on the same file, one after the other: without quarantine, then with it. */
  async run(request: PayBillRequest): Promise<PayBillLabView> {
    return {
      customerMessage: PAY_BILL_MESSAGE,
      file: request.file,
      expected: LEGITIMATE_BILL,
      without: await this.once(request, false),
      with: await this.once(request, true),
    };
  }

  private async once(request: PayBillRequest, quarantine: boolean): Promise<BillRunView> {
    this.bills.file = request.file;
    this.quarantined.misled = request.quarantinedModelMisled;
    const before = this.bills.payments.length;
    const extractionsBefore = this.quarantined.calls;
    const context = labContext(request.actor);
    const prefix = this.conversation.nextToolCallId(quarantine ? 'bill_q' : 'bill');
    const model = new InjectionFollowingChatModel(quarantine ? quarantinedScript(prefix) : readingScript(prefix), {
      label: quarantine ? 'deciding (quarantine)' : 'deciding',
      maxInjectedTurns: 1,
    });
    const tracker = this.trackers.forAgent().middleware();
    const middleware = quarantine
      ? [this.readers.forAgent({ schemas: { bill: billSchema } }).middleware(), tracker]
      : [tracker];
    const agent = createAgent({
      model,
      tools: [
        this.tools.bound(definitionOnlyTool(READ_ATTACHMENT_TOOL, attachmentArguments), BillCapability.ReadAttachment),
        this.tools.bound(definitionOnlyTool(PAY_BILL_TOOL, billPaymentArguments), BillCapability.PayBill),
      ],
      middleware,
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: prefix } };
    const inContext = <T>(work: () => Promise<T>) => this.contexts.run(context, work);
    const confirmations: BillConfirmationView[] = [];
    let stopped: ModelBudgetExceededError | undefined;
    try {
      let state = await inContext(() => agent.invoke({ messages: [new HumanMessage(PAY_BILL_MESSAGE)] }, config));
      for (let paused = pausedOn(state); paused !== undefined; paused = pausedOn(state)) {
        const confirmation = await inContext(() => this.confirm(paused, model, context));
        confirmations.push(confirmation);
        const resume = confirmation.decision === 'approved' ? approveToolCall(paused) : rejectToolCall(paused);
        state = await inContext(() => agent.invoke(new Command({ resume }), config));
      }
    } catch (error) {
      // A bill reading the customer's model budget has no room for ends the run (the lab's LAB_MODEL_BUDGETS).
      stopped = budgetStop(error);
      if (stopped === undefined) throw error;
    }
    const payments = this.bills.payments.slice(before);
    const seen = [...new Set(model.transcript.flat())].map(textOf).join('\n');
    const shown = new Map(model.toolMessages().map((message) => [message.tool_call_id, String(message.content)]));
    return {
      mode: quarantine ? 'with quarantine' : 'without quarantine',
      calls: model.emittedToolCalls().map((call) => ({
        toolCallId: call.id,
        obeyedInjection: call.id.startsWith('injected-'),
        proposal: { tool: call.name, arguments: call.args },
        outcome: outcomeOf(shown.get(call.id), confirmations, call.id),
        modelSaw: shown.get(call.id) ?? '',
      })),
      decidingModelInput: seen,
      decidingModelReadTheFile: request.file.split('\n').some((line) => line.trim() !== '' && seen.includes(line)),
      extractions: this.quarantined.calls - extractionsBefore,
      confirmations,
      payments: payments.map(({ payee, iban, amountCents }) => ({ payee, iban, amountCents })),
      summary: summaryOf(quarantine, extractedBill(shown.get(`${prefix}-extract`)), payments, confirmations, stopped),
    };
  }

  /**
   * The customer's approval screen for the paused payment: the value and the untrusted text it came from,
   * released to their screen. They approve the repair shop's bill they expect, when the screen showed where the
   * value came from; they reject anything else.
   */
  private async confirm(
    toolCallId: string,
    model: InjectionFollowingChatModel,
    context: ActionContext,
  ): Promise<BillConfirmationView> {
    const challenge = await this.approvals.challengeForToolCall(toolCallId, context);
    if (challenge === null) throw new Error(`No confirmation is pending for ${toolCallId}.`);
    const approver = { id: `customer:${(context.actor as { customerId: number }).customerId}`, context };
    const release = await this.approvals.untrustedContent(
      challenge.receiptId,
      approver,
      { destination: CUSTOMER_APPROVAL_SCREEN },
      context,
    );
    const shown = release.allowed
      ? release.items.map((item) => ({
          text: item.status === 'released' ? item.text : `(not released to this screen: ${item.status})`,
          passage: item.passageOf !== undefined,
        }))
      : [];
    const args = model.emittedToolCalls().find((call) => call.id === toolCallId)?.args ?? {};
    const expected = args.iban === LEGITIMATE_BILL.iban && args.amountCents === LEGITIMATE_BILL.amountCents;
    const sourceShown = shown.some((item) => !item.text.startsWith('(') && item.text.includes(String(args.iban)));
    const approved = expected && sourceShown;
    await this.approvals[approved ? 'approve' : 'reject'](challenge.receiptId, toolCallId, approver.id);
    return {
      toolCallId,
      arguments: args,
      reason: challenge.reason,
      shown,
      decision: approved ? 'approved' : 'rejected',
      why: approved
        ? `The screen showed where ${String(args.iban)} came from, and it is the repair shop's account and amount the customer expects.`
        : !expected
          ? `${String(args.iban)} (${String(args.amountCents)} cents) is not the repair shop's bill the customer expects.`
          : 'The screen did not show where the value came from.',
    };
  }
}

/** The tool call a run is paused on for the customer's confirmation, if any. */
function pausedOn(state: { __interrupt__?: readonly { readonly value?: unknown }[] }): string | undefined {
  const value = state.__interrupt__?.[0]?.value as Partial<ApprovalInterrupt> | undefined;
  return value?.type === 'verdict.approval_required' ? value.toolCallId : undefined;
}

function outcomeOf(answer: string | undefined, confirmations: readonly BillConfirmationView[], id: string): string {
  const confirmation = confirmations.find((c) => c.toolCallId === id);
  const refused = answer === undefined ? null : readNotExecutedMessage(answer);
  if (confirmation !== undefined)
    return confirmation.decision === 'approved' ? 'confirmed by the customer, executed' : 'rejected by the customer';
  return refused === null ? 'executed' : refused.decision;
}

/** The {@link ModelBudgetExceededError} that ended a run, as thrown or as the cause LangChain wrapped it in. */
function budgetStop(error: unknown): ModelBudgetExceededError | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause)
    if (cause instanceof ModelBudgetExceededError) return cause;
  return undefined;
}

/** Whether the quarantined extraction answered a typed bill (not `No bill value (...)`, or no extraction at all). */
function extractedBill(answer: string | undefined): boolean {
  return answer !== undefined && billSchema.safeParse(safeJson(answer)).success;
}

function summaryOf(
  quarantine: boolean,
  typedBill: boolean,
  payments: readonly Bill[],
  confirmations: readonly BillConfirmationView[],
  stopped: ModelBudgetExceededError | undefined,
) {
  const paid =
    payments.length === 0
      ? 'Nothing was paid.'
      : payments.map((p) => `Paid ${p.amountCents} cents to ${p.payee} (${p.iban}).`).join(' ');
  const asked = `The customer was asked ${confirmations.length} time(s), and rejected ${
    confirmations.filter((c) => c.decision === 'rejected').length
  }.`;
  const read = !quarantine
    ? "The assistant read the file's text, instruction included."
    : typedBill
      ? 'The assistant never read the file: it got a handle, and the quarantined model (no tools) answered a typed bill.'
      : 'The assistant never read the file: it got a handle, and the quarantined model (no tools) found no bill in it.';
  const stop = `The run stopped before the bill was read: the model budget "${stopped?.budget}" has no room for it.`;
  return `${stopped === undefined ? read : stop} ${paid} ${asked}`;
}

/** Without quarantine: read the file, then pay what its lines say (the manipulated model first obeys an instruction line). */
function readingScript(prefix: string): ScriptStep[] {
  return [
    { toolCalls: [{ name: READ_ATTACHMENT_TOOL.name, args: { orderId: BILL_ORDER_ID }, id: `${prefix}-read` }] },
    (messages) => payFrom(readBillLines(fileTextOf(toolText(messages, `${prefix}-read`))), prefix),
    { text: 'Done.' },
  ];
}

/** With quarantine: read the file (a handle comes back), extract a typed bill from it, pay the extracted value. */
function quarantinedScript(prefix: string): ScriptStep[] {
  return [
    { toolCalls: [{ name: READ_ATTACHMENT_TOOL.name, args: { orderId: BILL_ORDER_ID }, id: `${prefix}-read` }] },
    (messages): ScriptedTurn => {
      const handle = safeJson(toolText(messages, `${prefix}-read`))?.quarantined;
      if (typeof handle !== 'string') return { text: 'The file did not come back as a handle.' };
      return {
        toolCalls: [
          {
            name: 'quarantine_extract',
            args: { handle, schema: 'bill', instruction: 'who to pay, to which IBAN, and the amount due in cents' },
            id: `${prefix}-extract`,
          },
        ],
      };
    },
    (messages) => {
      const bill = billSchema.safeParse(safeJson(toolText(messages, `${prefix}-extract`)));
      return payFrom(bill.success ? bill.data : null, prefix);
    },
    { text: 'Done.' },
  ];
}

function payFrom(bill: Bill | null, prefix: string): ScriptedTurn {
  if (bill === null) return { text: 'I could not read a bill from the file.' };
  return {
    toolCalls: [{ name: PAY_BILL_TOOL.name, args: { orderId: BILL_ORDER_ID, ...bill }, id: `${prefix}-pay` }],
  };
}

/** What the tool call `id` answered, as the deciding model read it (empty when it has not answered). */
function toolText(messages: readonly BaseMessage[], id: string): string {
  const answer = messages.find((message) => ToolMessage.isInstance(message) && message.tool_call_id === id);
  return answer === undefined ? '' : textOf(answer);
}

function safeJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
