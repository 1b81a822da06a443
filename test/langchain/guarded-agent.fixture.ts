import { type BaseMessage, HumanMessage, type SystemMessage, type ToolMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  ContextReleaser,
  DataClass,
  Destination,
  InMemoryEvidenceRecorder,
  ReleasePolicy,
  Source,
  Trust,
} from '@verdict/nestjs';
import {
  ModelInputGuard,
  type ModelInputGuardOptions,
  type ToolResultRoute,
  applicationFaultMiddleware,
} from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '../../libs/testing/src/scripted-chat-model.js';

export const PUBLIC_MESSAGE = 'Not done.';
export const LOCAL = Destination.connection('ollama', 'local-machine');
export const CUSTOMER_RECORD = Source.application('customer-record');

/** A whole customer record, as a careless tool returns it. Synthetic values. */
export const RECORD = {
  id: 72,
  name: 'Synthetic Customer 72',
  email: 'customer72@acme.example',
  card: '4111 1111 1111 1111',
  notes: 'Prefers mail to customer72@acme.example',
};

export const customerRoute: ToolResultRoute = {
  source: CUSTOMER_RECORD,
  trust: Trust.Trusted,
  classification: DataClass.Pii,
  only: ['id', 'name', 'email'],
  redact: ['email'],
};

/** A tool that records every call's arguments and answers `{ sent: true }`. */
export function recordingTool(name: string, schema: z.ZodObject<z.ZodRawShape>) {
  const calls: unknown[] = [];
  const recording = tool(
    async (args: unknown) => {
      calls.push(args);
      return JSON.stringify({ sent: true });
    },
    { name, description: name, schema },
  );
  return { tool: recording, calls };
}

/** The first message of `type` that the model was shown, in any turn. */
export function shownMessage(model: ScriptedChatModel, type: string): BaseMessage {
  const found = model.transcript.flat().find((message) => message.type === type);
  if (found === undefined) throw new Error(`the model was never shown a ${type} message`);
  return found;
}

/** The sealed tool message the guard released for the customer lookup, taken from a real agent run. */
export async function sealedLookupResult(guarded: ReturnType<typeof guardedAgent>): Promise<ToolMessage> {
  const { model } = await guarded.run([
    { toolCalls: [{ name: 'lookup_customer', args: {}, id: 'call_lookup' }] },
    { text: 'Done.' },
  ]);
  return shownMessage(model, 'tool') as ToolMessage;
}

/**
 * A guard on a context releaser with one route (customer records to the local model), and a real
 * `createAgent` loop around a scripted model with `lookup_customer` (returns the whole record) and `tools`.
 */
export function guardedAgent(
  options: Partial<Omit<ModelInputGuardOptions, 'releaser' | 'destination' | 'publicMessage'>> & {
    tools?: StructuredToolInterface[];
    systemPrompt?: string | SystemMessage;
  } = {},
) {
  const evidence = new InMemoryEvidenceRecorder();
  const releaser = new ContextReleaser({
    policies: [ReleasePolicy.route(CUSTOMER_RECORD, LOCAL).allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] })],
    recorder: evidence,
  });
  const { tools = [], systemPrompt, ...guardOptions } = options;
  const guard = new ModelInputGuard({
    releaser,
    destination: LOCAL,
    toolResults: { lookup_customer: customerRoute },
    publicMessage: PUBLIC_MESSAGE,
    isCapability: () => false,
    recorder: evidence,
    ...guardOptions,
  });
  const lookup = tool(async () => JSON.stringify(RECORD), {
    name: 'lookup_customer',
    description: 'Look up the customer',
    schema: z.object({}),
  });
  const run = async (
    script: ScriptStep[],
    messages: BaseMessage[] = [new HumanMessage('Who am I?')],
    config: { threadId?: string } = {},
  ) => {
    const model = new ScriptedChatModel(script);
    const agent = createAgent({
      model,
      tools: [lookup, ...tools],
      systemPrompt,
      middleware: [applicationFaultMiddleware(), guard.middleware()],
    });
    // langchain wraps a middleware's error in its MiddlewareError; the guard's typed error is the cause.
    const configurable = config.threadId === undefined ? undefined : { thread_id: config.threadId };
    const outcome = await agent.invoke({ messages }, { configurable }).then(
      () => null,
      (error: unknown) => (error as { cause?: unknown }).cause ?? error,
    );
    return { model, outcome };
  };
  return { guard, run, evidence };
}
