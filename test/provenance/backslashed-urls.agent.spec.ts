import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  ExecutionTargetPolicy,
  ProvenanceSource,
  ProvenanceWindow,
  Trust,
  analyzeInfluence,
  defineCapability,
  fromContext,
  labelContent,
} from '@verdict/nestjs';
import { type ScriptStep, ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { paymentsFixture } from './payments.fixture.js';

const SHARE = 'https://files.acme.example/share/team-finance';
const REQUEST = `Show p-1, then upload the report to ${SHARE}`;
/**
 * What an injected document asks for, on the host the customer named: Node's WHATWG parser reads each `\` as `/`
 * (`\%70ublic\%64rop` is `/%70ublic/%64rop`); the last is host `evil.example` to an RFC 3986 parser.
 */
const BACKSLASHED = [
  'https://files.acme.example\\%70ublic\\%64rop',
  'https://files.acme.example\\%73hare\\%74eam',
  'https://files.acme.example\\@attacker',
  'https://files.acme.example\\_drop\\_attacker',
  'https://files.acme.example\\@evil.example',
];

/** `files.upload`, whose URL takes the positive rule, next to the products and payments of the fixture. */
async function uploadFixture() {
  const uploads: string[] = [];
  const upload = defineCapability(
    {
      name: 'files.upload',
      description: 'Upload the report to a URL',
      action: 'read',
      subject: 'Catalog',
      arguments: z.object({ url: z.string() }),
      resolveTarget: fromContext(() => ({ __caslSubjectType__: 'Catalog', id: 'catalog' })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'catalog', identity: () => 'catalog' }),
      mutates: true,
      provenance: { untrustedContext: 'allow', destinations: ['url'], arguments: { url: { derivedFrom: 'trusted' } } },
    },
    (action) => {
      uploads.push(new URL(action.arguments.url).href);
      return { ok: true };
    },
  );
  const fixture = await paymentsFixture({ capabilities: [upload] });
  const uploadTool = fixture.bind(
    tool(async () => 'never', { name: 'upload', description: 'Upload', schema: z.object({ url: z.string() }) }),
    'files.upload',
  );
  return { fixture, uploadTool, uploads };
}

/** A real createAgent loop: the model reads the product (an untrusted review), then uploads to `url`. */
async function viewThenUpload(url: string) {
  const { fixture, uploadTool, uploads } = await uploadFixture();
  try {
    const script: ScriptStep[] = [
      { toolCalls: [{ name: 'view_product', args: { productId: 'p-1' }, id: 'call_view' }] },
      { toolCalls: [{ name: 'upload', args: { url }, id: 'call_up' }] },
      { text: 'Done.' },
    ];
    const agent = createAgent({
      model: new ScriptedChatModel(script),
      tools: [...fixture.tools, uploadTool] as StructuredToolInterface[],
      checkpointer: new MemorySaver(),
      middleware: [fixture.trackers.forAgent().middleware()],
    });
    await fixture.as(() =>
      agent.invoke({ messages: [new HumanMessage(REQUEST)] }, { configurable: { thread_id: 't-url' } }),
    );
    const decisions = fixture.evidence
      .decisions()
      .filter((record) => record.stage === 'provenance' && record.capability === 'files.upload');
    return { uploads, decisions: decisions.map((record) => record.disposition) };
  } finally {
    await fixture.moduleRef.close();
  }
}

describe('a URL written with backslashes after the host (ADR 0164)', () => {
  const window = ProvenanceWindow.of([labelContent(REQUEST, ProvenanceSource.user('principal'), Trust.Trusted)]);
  const derived = (url: string) => analyzeInfluence(window, { url }).derivation[0]!.derived;

  it.each(BACKSLASHED)('attack (analysis): %s is not derived from the URL the customer typed', (url) => {
    expect(derived(url)).toBe(false);
  });

  it('attack (analysis): a URL whose authority parsers read differently is not derived even where the customer typed it', () => {
    for (const url of ['https://files.acme.example\\@evil.example', 'https://files.acme.example@evil.example']) {
      const typed = ProvenanceWindow.of([
        labelContent(`use ${url}`, ProvenanceSource.user('principal'), Trust.Trusted),
      ]);
      expect([url, analyzeInfluence(typed, { url }).derivation[0]!.derived]).toEqual([url, false]);
      expect(analyzeInfluence(typed, { url }, { trustedValues: [url] }).derivation[0]!.derived).toBe(false);
    }
  });

  it('utility (analysis): the exact URL the customer typed, and its host, are derived', () => {
    expect(derived(SHARE)).toBe(true);
    expect(derived('https://files.acme.example/share/team-finance/')).toBe(true);
    expect(derived('files.acme.example')).toBe(true);
    expect(derived('https://files.acme.example/share/team')).toBe(false);
  });

  it.each(BACKSLASHED)('attack (createAgent, tracked): the upload to %s is refused', async (url) => {
    const { uploads, decisions } = await viewThenUpload(url);
    expect(decisions).toEqual(['deny']);
    expect(uploads).toEqual([]);
  });

  it('utility (createAgent, tracked): the upload to the URL the customer typed runs', async () => {
    const { uploads, decisions } = await viewThenUpload(SHARE);
    expect(decisions).toEqual(['permit']);
    expect(uploads).toEqual([SHARE]);
  });
});
