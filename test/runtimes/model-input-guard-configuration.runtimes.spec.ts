import { afterEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import type { TestingModule } from '@nestjs/testing';
import { createAgent } from 'langchain';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { VerdictConfigurationError } from '@verdict/nestjs';
import { AiSdkModelInputGuards, VerdictAiSdkModule } from '@verdict/nestjs/ai-sdk';
import { ModelInputGuards } from '@verdict/nestjs/langchain';
import { AgentsModelInputGuards, VerdictAgentsModule } from '@verdict/nestjs/openai-agents';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { paymentsFixture } from '../provenance/payments.fixture.js';
import { TRUSTED_ONLY, catalogPolicy, local, productRoute } from '../provenance/payments-script.fixture.js';

// docs/context-release.md §6: a model-input guard is bound to one destination, and each tool's results to a release
// route. A destination or route that could never release is a wiring mistake, refused when the guard is built (every
// runtime: the routes are checked in one place), never at the tool's first result.

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

type Build = (destination: unknown, toolResults: Record<string, unknown>) => unknown;

/** `forDestination` of each runtime's guards, from one booted module. */
async function runtimes(): Promise<Record<string, Build>> {
  const fixture = await paymentsFixture({
    payments: TRUSTED_ONLY,
    releasePolicies: [catalogPolicy],
    imports: [VerdictAiSdkModule, VerdictAgentsModule],
  });
  booted.push(fixture.moduleRef);
  const get = <T>(type: new (...args: never[]) => T) => fixture.moduleRef.get(type, { strict: false });
  return {
    langchain: (destination, toolResults) =>
      get(ModelInputGuards).forDestination(destination as never, { toolResults: toolResults as never }),
    'ai-sdk': (destination, toolResults) =>
      get(AiSdkModelInputGuards).forDestination(destination as never, { toolResults: toolResults as never }),
    'openai-agents': (destination, toolResults) =>
      get(AgentsModelInputGuards).forDestination(destination as never, { toolResults: toolResults as never }),
  };
}

const RUNTIMES = ['langchain', 'ai-sdk', 'openai-agents'];
const MALFORMED: [string, Record<string, unknown>, string][] = [
  ['only that is a string', { ...productRoute, only: 'name' }, 'only()'],
  ['no trust', { ...productRoute, trust: undefined }, 'trust('],
  ['a source that is not a Source', { ...productRoute, source: 'catalog' }, 'source('],
  ['a redaction only() cannot reach', { ...productRoute, redact: ['email'] }, 'email'],
  ['a malformed path', { ...productRoute, only: ['name', 'price.'] }, 'empty segment'],
];

describe('model-input guards check their destination and tool-result routes when built', () => {
  it.each(RUNTIMES.flatMap((runtime) => MALFORMED.map(([what, route, field]) => [runtime, what, route, field])))(
    'attack (%s): a route with %s is a configuration error naming the tool',
    async (runtime, _what, route, field) => {
      const build = (await runtimes())[runtime as string]!;
      const refused = (() => {
        try {
          build(local, { lookup_product: route });
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(refused).toBeInstanceOf(VerdictConfigurationError);
      expect((refused as Error).message).toContain('"lookup_product"');
      expect((refused as Error).message).toContain(field);
    },
  );

  it.each(RUNTIMES)(
    'attack (%s): a destination that is not a Destination is a configuration error',
    async (runtime) => {
      const build = (await runtimes())[runtime]!;
      expect(() => build({ connection: 'ollama', trustZone: 'local-machine' }, {})).toThrow(VerdictConfigurationError);
    },
  );

  it.each(RUNTIMES)('control (%s): a well-formed route and destination build a guard', async (runtime) => {
    const build = (await runtimes())[runtime]!;
    expect(build(local, { lookup_product: productRoute, other: { ...productRoute, redact: ['name'] } })).toBeDefined();
  });

  it('control (langchain): a tool result is released through its route at the first call', async () => {
    const guard = (await runtimes()).langchain!(local, { lookup_product: productRoute }) as ReturnType<
      ModelInputGuards['forDestination']
    >;
    const lookup = tool(async () => JSON.stringify({ name: 'Lamp', price: 20, supplier: 'secret-supplier' }), {
      name: 'lookup_product',
      description: 'Look a product up',
      schema: z.object({ id: z.string() }),
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'lookup_product', args: { id: 'p1' }, id: 'c1' }] },
      { text: 'done' },
    ]);
    const agent = createAgent({ model, tools: [lookup], middleware: [guard.middleware()] });
    await agent.invoke({ messages: [new HumanMessage('What does the lamp cost?')] });
    expect(model.toolMessages().map((message) => message.content)).toEqual([
      JSON.stringify({ name: 'Lamp', price: 20 }),
    ]);
  });
});

// docs/options.md: a guard's `sealKey` is at least 32 bytes. A shorter or missing key is a wiring mistake, refused when
// the guard is built with the configuration error every other malformed guard option gets — not a RangeError, or a
// TypeError from reading `null`.

/** The guard of each runtime that takes a `sealKey` (the OpenAI Agents guard does not), built with `sealKey`. */
async function withSealKey(): Promise<Record<string, (sealKey: unknown) => { systemPrompt(text: string): unknown }>> {
  const fixture = await paymentsFixture({
    payments: TRUSTED_ONLY,
    releasePolicies: [catalogPolicy],
    imports: [VerdictAiSdkModule],
  });
  booted.push(fixture.moduleRef);
  const get = <T>(type: new (...args: never[]) => T) => fixture.moduleRef.get(type, { strict: false });
  return {
    langchain: (sealKey) => get(ModelInputGuards).forDestination(local, { toolResults: {}, sealKey: sealKey as never }),
    'ai-sdk': (sealKey) =>
      get(AiSdkModelInputGuards).forDestination(local, { toolResults: {}, sealKey: sealKey as never }),
  };
}

const SEALING = ['langchain', 'ai-sdk'];
const BAD_KEYS: [string, () => unknown, string][] = [
  ['16 bytes', () => new Uint8Array(16), 'a Uint8Array of 16 bytes'],
  ['null', () => null, 'got null'],
  ['an empty string', () => '', 'a string of 0 bytes'],
  ['a number', () => 42, 'a number'],
  ['an array of numbers', () => Array.from(randomBytes(32)), 'an array'],
  ['a 16-byte ArrayBuffer (which was taken, at any length)', () => new ArrayBuffer(16), 'an object (ArrayBuffer)'],
];

describe('model-input guards check their sealKey when built', () => {
  it.each(SEALING.flatMap((runtime) => BAD_KEYS.map(([what, key, got]) => [runtime, what, key, got] as const)))(
    'attack (%s): a sealKey of %s is a configuration error naming sealKey',
    async (runtime, _what, key, got) => {
      const build = (await withSealKey())[runtime]!;
      const refused = (() => {
        try {
          build(key());
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(refused).toBeInstanceOf(VerdictConfigurationError);
      expect((refused as VerdictConfigurationError).context).toEqual({ option: 'sealKey' });
      expect((refused as Error).message).toContain('`sealKey`');
      expect((refused as Error).message).toContain('or a string of at least 32 UTF-8 bytes');
      expect((refused as Error).message).toContain(got);
    },
  );

  it.each(SEALING)(
    'control (%s): a 32-byte key, a string of 32 bytes or more and no key build a guard',
    async (runtime) => {
      const build = (await withSealKey())[runtime]!;
      expect(build(randomBytes(32))).toBeDefined();
      expect(build(randomBytes(32).toString('hex'))).toBeDefined();
      expect(build(undefined)).toBeDefined();
    },
  );

  it.each(SEALING)(
    'control (%s): a string key is read as its UTF-8 bytes, as it always was: seals made under it still verify',
    async (runtime) => {
      const build = (await withSealKey())[runtime]!;
      const key = randomBytes(32).toString('hex');
      const prompt = (sealKey: unknown) => build(sealKey).systemPrompt('You help customers with their orders.');
      expect(prompt(key)).toEqual(prompt(Buffer.from(key, 'utf8')));
      expect(prompt(key)).not.toEqual(prompt(Buffer.from(key, 'hex')));
    },
  );
});
