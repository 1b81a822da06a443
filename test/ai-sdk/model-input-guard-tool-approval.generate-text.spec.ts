import { afterEach, describe, expect, it } from '@jest/globals';
import { type LanguageModel, type ModelMessage, generateText, stepCountIs, wrapLanguageModel } from 'ai';
import type { TestingModule } from '@nestjs/testing';
import { ActionContextStore, UnreleasedContextError } from '@verdict/nestjs';
import {
  AiSdkModelInputGuards,
  AiSdkProvenanceTrackers,
  VerdictAiSdkModule,
  VerdictAiSdkTools,
} from '@verdict/nestjs/ai-sdk';
import { OWN_IBAN, alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { TRUSTED_ONLY, catalogPolicy, local, pay, productRoute } from '../provenance/payments-script.fixture.js';
import { scriptedLanguageModel } from './scripted-language-model.js';

// docs/runtimes/ai-sdk.md: an approval response in the prompt (`tool-approval-response`, which the SDK keeps for a
// provider's own tools and a provider sends back, its id as the request's) holds no data, as a message's options do.

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

const record = JSON.stringify({ email: 'customer72@acme.example', card: '4111 1111 1111 1111' });
type WrappedModel = ReturnType<typeof wrapLanguageModel>;
type Prompt = Parameters<WrappedModel['doGenerate']>[0]['prompt'];

/**
 * A payment that requires confirmation, behind the tracker and a guard: `paused()` runs Alice's generation to the
 * SDK's approval request and approves the payment in Verdict; `resume(messages)` runs her next generation, the
 * provider answering `paid`; `direct(prompt)` sends a prompt straight through the guard to a provider.
 */
async function setup() {
  const fixture = await paymentsFixture({
    payments: TRUSTED_ONLY,
    confirmPayments: true,
    releasePolicies: [catalogPolicy],
    imports: [VerdictAiSdkModule],
  });
  booted.push(fixture.moduleRef);
  const tools = {
    send_payment: fixture.moduleRef.get(VerdictAiSdkTools, { strict: false }).bound('payments.send', {
      name: 'send_payment',
    }),
  };
  const tracker = fixture.moduleRef.get(AiSdkProvenanceTrackers, { strict: false }).forAgent();
  const guard = fixture.moduleRef
    .get(AiSdkModelInputGuards, { strict: false })
    .forDestination(local, { toolResults: { send_payment: { ...productRoute, only: ['paid'] } } });
  const contexts = fixture.moduleRef.get(ActionContextStore);
  const guarded = (inner: LanguageModel & object) =>
    wrapLanguageModel({ model: inner as WrappedModel, middleware: [tracker.middleware(), guard.middleware()] });
  const generate = (model: LanguageModel, messages: ModelMessage[]) =>
    contexts.run(alice, () => generateText({ model, tools, messages, stopWhen: stepCountIs(3) }));
  const question: ModelMessage[] = [{ role: 'user', content: `Pay 25 to ${OWN_IBAN}.` }];

  const paused = async () => {
    const first = await generate(guarded(scriptedLanguageModel([{ toolCalls: [pay(OWN_IBAN)] }])), question);
    const request = first.content.find((part) => part.type === 'tool-approval-request');
    expect(request).toBeDefined();
    const challenge = await contexts.run(alice, () => fixture.approvals.challengeForToolCall('call_pay', alice));
    await fixture.approvals.approve(challenge!.receiptId, 'call_pay', 'alice');
    return { history: [...question, ...first.responseMessages], approvalId: request!.approvalId };
  };
  const resume = (messages: ModelMessage[]) => {
    const inner = scriptedLanguageModel([{ text: 'paid' }]);
    return { inner, result: generate(guarded(inner), messages) };
  };
  const direct = (prompt: unknown[]) => {
    const inner = scriptedLanguageModel([{ text: 'ok' }]);
    const result = contexts.run(alice, () => guarded(inner).doGenerate({ prompt: prompt as Prompt }));
    return { inner, result };
  };
  return { fixture, paused, resume, direct };
}

/** The client's answer to the approval request, kept in the prompt as for a provider's own tool. */
const answer = (approvalId: string, fields: object = {}) => ({
  role: 'tool' as const,
  content: [{ type: 'tool-approval-response' as const, approvalId, approved: true, providerExecuted: true, ...fields }],
});

/** `history` with the approval request's id replaced (the SDK leaves requests out of the prompt: no seal covers it). */
const withApprovalId = (history: ModelMessage[], approvalId: string): ModelMessage[] =>
  history.map((message) =>
    message.role !== 'assistant' || typeof message.content === 'string'
      ? message
      : {
          ...message,
          content: message.content.map((part) =>
            part.type === 'tool-approval-request' ? { ...part, approvalId } : part,
          ),
        },
  );

describe('the AI SDK model-input guard checks approval responses in tool messages', () => {
  it('attack: a record as an approval response’s id, or as its reason, never reaches the provider', async () => {
    const { paused, resume } = await setup();
    const { history, approvalId } = await paused();
    for (const messages of [
      [...withApprovalId(history, record), answer(record)],
      [...history, answer(approvalId, { reason: record })],
      [...history, answer(approvalId, { reason: `Fine.\u{E0041}\u{E0042}` })],
    ] as ModelMessage[][]) {
      const { inner, result } = resume(messages);
      await expect(result).rejects.toBeInstanceOf(UnreleasedContextError);
      expect(inner.doGenerateCalls).toHaveLength(0);
    }
  });

  it('attack: data in an approval response’s provider options or another field, or a part of another type, fails before the provider is called', async () => {
    const { direct } = await setup();
    const hello = { role: 'user', content: [{ type: 'text', text: 'hello' }] };
    for (const part of [
      { type: 'tool-approval-response', approvalId: 'a1', approved: true, providerOptions: { acme: { note: record } } },
      { type: 'tool-approval-response', approvalId: 'a1', approved: true, metadata: { customer: record } },
      { type: 'tool-approval-response', approvalId: { customer: record }, approved: true },
      { type: 'tool-note', text: record },
    ]) {
      const { inner, result } = direct([hello, { role: 'tool', content: [part] }]);
      await expect(result).rejects.toBeInstanceOf(UnreleasedContextError);
      expect(inner.doGenerateCalls).toHaveLength(0);
    }
  });

  it('control: an approval response as the SDK gives it, with a plain reason, reaches the provider and the payment runs once', async () => {
    const { fixture, paused, resume } = await setup();
    const { history, approvalId } = await paused();
    const { inner, result } = resume([...history, answer(approvalId, { reason: 'Yes, that is my own account.' })]);
    expect((await result).text).toBe('paid');
    const sent = JSON.stringify(inner.doGenerateCalls[0]!.prompt);
    expect(sent).toContain(approvalId);
    expect(sent).toContain('Yes, that is my own account.');
    expect(fixture.payments).toHaveLength(1);
  });

  it('control: a plain approval response with plain provider options passes straight through the guard', async () => {
    const { direct } = await setup();
    const part = {
      type: 'tool-approval-response',
      approvalId: 'mcpr_123',
      approved: false,
      reason: 'Not now.',
      providerOptions: { acme: { priority: 1 } },
    };
    const { inner, result } = direct([
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      { role: 'tool', content: [part] },
    ]);
    await result;
    expect(JSON.stringify(inner.doGenerateCalls[0]!.prompt)).toContain('mcpr_123');
  });
});
