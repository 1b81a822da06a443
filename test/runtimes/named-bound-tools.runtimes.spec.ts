import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool as langChainTool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { Agent, Runner, setTracingDisabled } from '@openai/agents';
import {
  ExecutionTargetPolicy,
  ProvenanceSource,
  type ResultProvenance,
  Trust,
  defineCapability,
  fromContext,
} from '@verdict/nestjs';
import { AgentsProvenanceTrackers, VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import {
  AiSdkProvenanceTrackers,
  type ProvenanceTrackerOptions,
  VerdictAiSdkModule,
  VerdictAiSdkTools,
} from '@verdict/nestjs/ai-sdk';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { type ScriptedTurn, scriptedLanguageModel } from '../ai-sdk/scripted-language-model.js';
import { ScriptedAgentsModel } from '../openai-agents/scripted-agents-model.js';
import { ATTACKER_IBAN, paymentsFixture } from '../provenance/payments.fixture.js';
import { TRUSTED_ONLY, pay } from '../provenance/payments-script.fixture.js';

// ProvenanceTrackerOptions.tools (ADR 0083, docs/mcp.md): a bound tool named there — an MCP tool routed through a
// capability — is labelled as that source: its result is the source's, not what its capability declares, under every
// runtime's tracker alike; `trustedTools` is the override.

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

type Runtime = 'langchain' | 'ai-sdk' | 'openai-agents';

/** What the remote file server answers: an account an attacker put in the file. */
const REMOTE_FILE = { account: ATTACKER_IBAN };
/** The remote tool, named an MCP server's by the tracker. */
const NAMED: ProvenanceTrackerOptions = { tools: { read_remote: ProvenanceSource.mcp('files') } };
const READ = { name: 'read_remote', input: {}, id: 'call_read' };

/**
 * The payments fixture (the recipient from trusted content only) with `files.read`, bound as `read_remote`, whose
 * results its capability declares as `results` says; `run(options)` runs one agent on `runtime` whose tracker has
 * `options`: the model reads the remote file, then pays the account it names.
 */
async function setup(runtime: Runtime, results: ResultProvenance) {
  const readRemote = defineCapability(
    {
      name: 'files.read',
      description: 'Read a file on the remote file server',
      action: 'read',
      subject: 'Catalog',
      arguments: z.object({}),
      resolveTarget: fromContext(() => ({ __caslSubjectType__: 'Catalog', id: 'catalog' })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'catalog', identity: () => 'catalog' }),
      provenance: { results },
    },
    () => REMOTE_FILE,
  );
  const imports = { langchain: [], 'ai-sdk': [VerdictAiSdkModule], 'openai-agents': [VerdictAgentsModule] }[runtime];
  const fixture = await paymentsFixture({ payments: TRUSTED_ONLY, capabilities: [readRemote], imports });
  const turns: ScriptedTurn[] = [{ toolCalls: [READ] }, { toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'Paid.' }];
  const question = 'Pay the account in my remote file.';
  const get = <T>(type: new (...args: never[]) => T) => fixture.moduleRef.get(type, { strict: false });

  const run = async (options: ProvenanceTrackerOptions): Promise<void> => {
    if (runtime === 'langchain') {
      const read = fixture.bind(
        langChainTool(async () => 'never', { name: 'read_remote', description: 'Read', schema: z.object({}) }),
        'files.read',
      );
      const agent = createAgent({
        model: new ScriptedChatModel(
          turns.map((turn) =>
            'text' in turn
              ? turn
              : {
                  toolCalls: turn.toolCalls.map(({ name, input, id }) => ({
                    name,
                    args: input as Record<string, unknown>,
                    id,
                  })),
                },
          ),
        ),
        tools: [read, fixture.tools[1]!],
        checkpointer: new MemorySaver(),
        middleware: [fixture.trackers.forAgent(options).middleware()],
      });
      await fixture.as(() =>
        agent.invoke({ messages: [new HumanMessage(question)] }, { configurable: { thread_id: 't-1' } }),
      );
    } else if (runtime === 'ai-sdk') {
      const aiTools = get(VerdictAiSdkTools);
      const tracker = get(AiSdkProvenanceTrackers).forAgent(options);
      const tools = {
        read_remote: aiTools.bound('files.read', { name: 'read_remote' }),
        send_payment: aiTools.bound('payments.send', { name: 'send_payment' }),
      };
      const model = wrapLanguageModel({ model: scriptedLanguageModel(turns), middleware: [tracker.middleware()] });
      await fixture.as(() =>
        generateText({ model, tools, messages: [{ role: 'user', content: question }], stopWhen: stepCountIs(5) }),
      );
    } else {
      const agentsTools = get(VerdictAgentsTools);
      const tracker = get(AgentsProvenanceTrackers).forAgent(options);
      const agent = new Agent({
        name: 'Support',
        instructions: 'Help the customer.',
        model: tracker.model(new ScriptedAgentsModel(turns)),
        tools: [
          agentsTools.bound('files.read', { name: 'read_remote' }),
          agentsTools.bound('payments.send', { name: 'send_payment' }),
        ],
      });
      await fixture.as(() => new Runner().run(agent, question));
    }
  };
  /** The provenance stage's decisions on payments: disposition and reason. */
  const decisions = () => fixture.provenanceDecisions().map((record) => [record.disposition, record.reason]);
  return { ...fixture, run, decisions };
}

const TRUSTED: ResultProvenance = { trust: Trust.Trusted };
/** Trusted per path: the account the result holds is labelled on its own. */
const TRUSTED_ACCOUNT: ResultProvenance = { trust: Trust.Trusted, paths: { account: { trust: Trust.Trusted } } };

describe.each(['langchain', 'ai-sdk', 'openai-agents'] as const)('a bound tool named in `tools` (%s)', (runtime) => {
  it('attack: its result is the named source’s, untrusted, whatever its capability declares: the account it names is refused', async () => {
    const env = await setup(runtime, TRUSTED);
    await env.run(NAMED);
    expect(env.payments).toHaveLength(0);
    expect(env.decisions()).toEqual([['deny', expect.stringContaining('mcp:files (untrusted)')]]);
  });

  it('attack: so is a result its capability declares trusted per path', async () => {
    const env = await setup(runtime, TRUSTED_ACCOUNT);
    await env.run(NAMED);
    expect(env.payments).toHaveLength(0);
    expect(env.decisions()).toEqual([['deny', expect.stringContaining('mcp:files (untrusted)')]]);
  });

  it('control: a bound tool the tracker does not name keeps its capability’s labels: the trusted read vouches', async () => {
    const env = await setup(runtime, TRUSTED_ACCOUNT);
    await env.run({});
    expect(env.payments.map((payment) => payment.arguments.recipient)).toEqual([ATTACKER_IBAN]);
  });

  it('control: named in `trustedTools` too, its result is trusted under its source, and the account is paid', async () => {
    const env = await setup(runtime, TRUSTED);
    await env.run({ ...NAMED, trustedTools: ['read_remote'] });
    expect(env.payments.map((payment) => payment.arguments.recipient)).toEqual([ATTACKER_IBAN]);
    expect(env.decisions()).toEqual([['permit', expect.any(String)]]);
  });
});
