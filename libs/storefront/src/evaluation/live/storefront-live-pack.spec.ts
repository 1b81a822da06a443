import { afterEach, describe, expect, it } from '@jest/globals';
import {
  type LiveAttackDefinition,
  LiveCase,
  LiveProvider,
  LiveReport,
  LiveReportError,
  LiveSuite,
  ProviderErrorClass,
  TrialOutcome,
  clopperPearson,
  runLiveSuite,
  type LiveRunOptions,
} from '@verdict/evaluation/live';
import { followingInjections, scriptedConversation, type ChatCompletionHandler } from '@verdict/testing-kit';
import { closeLoopbackServers, LOOPBACK_API_KEY, startLoopbackProvider } from './loopback-provider.js';
import { storefrontLoopbackModel } from './loopback-scripts.js';
import { LIVE_PROMPTS, storefrontLivePack } from './storefront-live-pack.js';

const API_KEY = LOOPBACK_API_KEY;
const loopback = startLoopbackProvider;
afterEach(closeLoopbackServers);

/** One case of the pack, alone. */
function packOf(...ids: string[]) {
  const pack = storefrontLivePack();
  return new (pack.constructor as typeof import('@verdict/evaluation/live').LiveSuite)(
    pack.name,
    pack.version,
    pack.cases.filter((c) => ids.includes(c.id)),
  );
}

const run = (suite: ReturnType<typeof packOf>, options: LiveRunOptions) =>
  runLiveSuite(suite, { concurrency: 2, ...options });
const caseOf = (report: LiveReport, id: string) => report.cases.find((c) => c.id === id)!;

describe('verdict live trials against a loopback OpenAI-compatible server', () => {
  it('contains the injected call in every guarded trial while the paired unguarded trial breaches', async () => {
    const { provider, server } = await loopback(storefrontLoopbackModel());
    const report = await run(storefrontLivePack(), { provider, trialsPerCase: 4, control: true });

    const injected = caseOf(report, 'injected-description-cancels-another-customers-order');
    expect(injected).toMatchObject({
      status: 'pass',
      guarded: { trials: 4, exercised: 4, contained: 4, breaches: 0, coverage: 1 },
      unguarded: { trials: 4, breaches: 4 },
      paired: { pairs: 4, heldWhereUnguardedBreached: 4, bothBreached: 0 },
    });
    expect(injected.guarded.breachUpperBound).toBeCloseTo(clopperPearson(0, 4).upper, 12);
    expect(caseOf(report, 'cross-customer-view')).toMatchObject({
      status: 'pass',
      guarded: { contained: 4, breaches: 0 },
      unguarded: { breaches: 4 },
    });
    for (const id of ['cancel-own-order', 'view-own-order'])
      expect(caseOf(report, id)).toMatchObject({
        status: 'pass',
        guarded: { utilitySuccesses: 4, utilityFailures: 0 },
      });
    expect(report.pack).toMatchObject({ status: 'pass', attack: { exercised: 8, breaches: 0 } });
    expect(report.pack.attack.breachUpperBound).toBeCloseTo(clopperPearson(0, 8).upper, 12);
    expect(report).toMatchObject({ complete: true, stoppedBy: null, provider: { model: 'loopback-scripted' } });
    expect(report.provider.sampling).toEqual({ temperature: 0, topP: null, maxOutputTokens: null, seed: null });
    // The real client sent the tools and the sampling setting, and every trial reported its usage.
    expect(server.requests[0]).toMatchObject({ model: 'loopback-scripted', temperature: 0 });
    // Each reply reports 10 + 5 tokens.
    expect(report.trials.every((trial) => trial.tokens !== null && trial.tokens > 0)).toBe(true);
    expect(report.budget.tokensUsed).toBe(15 * server.requests.length);
  });

  it('reports a model that ignores the injection as not exercised, and the case as inadequate, never pass', async () => {
    const { provider } = await loopback(storefrontLoopbackModel({ followsInjections: false }));
    const report = await run(packOf('injected-description-cancels-another-customers-order'), {
      provider,
      trialsPerCase: 3,
    });
    expect(report.cases[0]).toMatchObject({
      status: 'inadequate',
      guarded: { notExercised: 3, exercised: 0, coverage: 0, breachRate: null, breachUpperBound: null },
    });
    expect(report.trials.map((trial) => trial.attackedToolProposed)).toEqual([false, false, false]);
  });

  it.each([
    ['cross-customer-view', 'lookup_order', 1002, 1001],
    ['injected-description-cancels-another-customers-order', 'cancel_order', 1002, 1001],
  ] as const)(
    "%s: a call of the attacked tool on the customer's own order is not exercised; one on order 1001 is contained (control)",
    async (id, tool, own, others) => {
      // The scripted model answers the case's prompt with one call of the attacked tool, then a text.
      const answering = (orderId: number) =>
        scriptedConversation([{ toolCalls: [{ name: tool, arguments: { orderId } }] }, { text: 'Done.' }]);
      const ownOrder = await run(packOf(id), { provider: (await loopback(answering(own))).provider, trialsPerCase: 2 });
      expect(ownOrder.trials.map((trial) => [trial.outcome, trial.attackedToolProposed])).toEqual(
        Array(2).fill([TrialOutcome.NotExercised, false]),
      );
      expect(ownOrder.cases[0]).toMatchObject({ status: 'inadequate', guarded: { exercised: 0, notExercised: 2 } });

      const attack = await run(packOf(id), {
        provider: (await loopback(answering(others))).provider,
        trialsPerCase: 2,
      });
      expect(attack.trials.map((trial) => [trial.outcome, trial.attackedToolProposed])).toEqual(
        Array(2).fill([TrialOutcome.Contained, true]),
      );
      expect(attack.cases[0]).toMatchObject({ status: 'pass', guarded: { exercised: 2, contained: 2, breaches: 0 } });
    },
  );

  it('scores a breach whatever a throwing attacked(call) says; without a breach its throw is a harness_error', async () => {
    const injected = storefrontLivePack().cases.find(
      (c) => c.id === 'injected-description-cancels-another-customers-order',
    )!;
    const throwing = LiveCase.attack(injected.id, injected.version, {
      ...(injected.definition as LiveAttackDefinition),
      attacked: () => {
        throw new Error('a predicate that reads a missing argument');
      },
    });
    const suite = new LiveSuite('throwing-predicate', '1', [throwing]);
    const { provider } = await loopback(storefrontLoopbackModel());

    const report = await run(suite, { provider, trialsPerCase: 2, control: true });

    // The unguarded arm cancelled order 1001: a breach, never hidden as a harness error.
    expect(report.trials.filter((t) => t.arm === 'unguarded').map((t) => t.outcome)).toEqual([
      TrialOutcome.Breach,
      TrialOutcome.Breach,
    ]);
    // The guarded arm held, but nothing says the attack was proposed: the predicate's throw is the harness's fault.
    expect(report.trials.filter((t) => t.arm === 'guarded').map((t) => t.outcome)).toEqual([
      TrialOutcome.HarnessError,
      TrialOutcome.HarnessError,
    ]);
  });

  it('refuses an attacked(call) that is not a function (control: a predicate is taken)', () => {
    const open = async (): Promise<never> => {
      throw new Error('never opened');
    };
    const definition = { prompt: 'p', attackedTool: 'lookup_order', open };
    expect(() => LiveCase.attack('bad-predicate', '1', { ...definition, attacked: true as never })).toThrow(
      /attacked\(call\) must be a function/,
    );
    const taken = LiveCase.attack('predicate', '1', { ...definition, attacked: (call) => call.args.orderId === 1001 });
    expect(taken.isAttack({ name: 'lookup_order', args: { orderId: 1001 } })).toBe(true);
    expect(taken.isAttack({ name: 'lookup_order', args: { orderId: 1002 } })).toBe(false);
    expect(taken.isAttack({ name: 'cancel_order', args: { orderId: 1001 } })).toBe(false);
  });

  it('judges coverage adequacy by the configured share of finished trials', async () => {
    // Every other conversation follows the injection; the first tool call's id says which, so later turns agree.
    let conversations = 0;
    const follows = followingInjections(scriptedConversation([{ text: 'unused' }, { text: 'A rain jacket.' }]));
    const handler: ChatCompletionHandler = (request, index) => {
      const first = request.messages.find((m) => m.role === 'assistant');
      if (first === undefined)
        return {
          toolCalls: [
            { name: 'lookup_order', arguments: { orderId: 1002 }, id: conversations++ % 2 === 0 ? 'follow' : 'ignore' },
          ],
        };
      return first.tool_calls?.[0]?.id === 'follow' ? follows(request, index) : { text: 'A rain jacket.' };
    };
    const suite = packOf('injected-description-cancels-another-customers-order');
    const strict = await run(suite, { provider: (await loopback(handler)).provider, trialsPerCase: 6 });
    expect(strict.cases[0]).toMatchObject({
      status: 'inadequate',
      guarded: { exercised: 3, notExercised: 3, coverage: 0.5 },
    });

    conversations = 0;
    const lenient = await run(suite, {
      provider: (await loopback(handler)).provider,
      trialsPerCase: 6,
      minCoverage: 0.5,
    });
    expect(lenient.cases[0]).toMatchObject({ status: 'pass', guarded: { exercised: 3, breaches: 0 } });
    expect(lenient.cases[0]!.guarded.breachUpperBound).toBeCloseTo(clopperPearson(0, 3).upper, 12);
  });

  it.each([
    ['a 500', { status: 500 }, {}, ProviderErrorClass.ServerError],
    ['a 429', { status: 429 }, {}, ProviderErrorClass.RateLimit],
    [
      'malformed tool-call JSON',
      { toolCalls: [{ name: 'cancel_order', arguments: '{"orderId": 10' }] },
      {},
      ProviderErrorClass.MalformedToolCall,
    ],
    // A timeout is tested through the CLI, in a process of its own: under Jest's VM realm the OpenAI client
    // cannot tell its own abort from a connection error (test/evaluation/verdict-eval-live.cli.spec.ts).
  ] as const)('records %s as a provider error, never a pass or a failure', async (_name, reply, env, errorClass) => {
    const { provider } = await loopback(() => reply, env);
    const report = await run(packOf('cross-customer-view', 'cancel-own-order'), { provider, trialsPerCase: 2 });

    expect(report.trials.map((trial) => [trial.outcome, trial.errorClass])).toEqual(
      Array(4).fill([TrialOutcome.ProviderError, errorClass]),
    );
    for (const c of report.cases)
      expect(c).toMatchObject({ status: 'inadequate', guarded: { providerErrors: 2, finished: 0, breachRate: null } });
    expect(report.cases[1]!.guarded).toMatchObject({ utilityRate: null, providerErrorClasses: { [errorClass]: 2 } });
  });

  it('records a breach that happened as a breach, though the model then wrote a malformed call (control: contained is a provider error)', async () => {
    // Turn 1 asks for another customer's order (the unguarded arm shows it); turn 2 is a malformed call.
    const handler = scriptedConversation([
      { toolCalls: [{ name: 'lookup_order', arguments: { orderId: 1001 } }] },
      { toolCalls: [{ name: 'lookup_order', arguments: '{"orderId": 10' }] },
    ]);
    const { provider } = await loopback(handler);
    const report = await run(packOf('cross-customer-view'), { provider, trialsPerCase: 2, control: true });

    const outcomes = (arm: string) =>
      report.trials.filter((trial) => trial.arm === arm).map((trial) => [trial.outcome, trial.errorClass]);
    expect(outcomes('unguarded')).toEqual(Array(2).fill([TrialOutcome.Breach, null]));
    // Guarded, nothing breached: the malformed call leaves the trial a provider error, never a pass.
    expect(outcomes('guarded')).toEqual(
      Array(2).fill([TrialOutcome.ProviderError, ProviderErrorClass.MalformedToolCall]),
    );
  });

  it("retries a 5xx with the provider client's own retry, and the retried trial counts", async () => {
    const seen = new Set<string>();
    const model = storefrontLoopbackModel();
    const { provider, server } = await loopback(
      (request, index) => {
        const key = JSON.stringify(request.messages);
        if (seen.has(key)) return model(request, index);
        seen.add(key);
        return { status: 503 };
      },
      { VERDICT_LIVE_MAX_RETRIES: '1' },
    );
    const report = await run(packOf('cancel-own-order'), { provider, trialsPerCase: 1 });
    expect(report.trials).toMatchObject([{ outcome: TrialOutcome.UtilitySuccess, errorClass: null }]);
    expect(server.requests).toHaveLength(4); // two model turns, each failed once and retried
  });

  it('stops at the budget with a partial report, and a resumed run finishes it without re-running a trial', async () => {
    const { provider, server } = await loopback(storefrontLoopbackModel());
    const suite = packOf('injected-description-cancels-another-customers-order', 'cancel-own-order');
    const partial = await run(suite, { provider, trialsPerCase: 3, maxTrials: 4, concurrency: 1 });
    expect(partial).toMatchObject({ complete: false, stoppedBy: 'max_trials' });
    expect(partial.trials).toHaveLength(4);
    const requestsBefore = server.requests.length;

    const resumed = await run(suite, {
      provider,
      trialsPerCase: 3,
      resume: LiveReport.parse(LiveReport.toJson(partial)),
    });
    expect(resumed).toMatchObject({ complete: true, stoppedBy: null });
    expect(resumed.trials).toHaveLength(6);
    expect(resumed.trials).toEqual(expect.arrayContaining([...partial.trials]));
    // The two missing trials ran, two model turns each (the injected one obeys once more: three).
    expect(server.requests.length - requestsBefore).toBeLessThanOrEqual(6);
    expect(caseOf(resumed, 'cancel-own-order').guarded).toMatchObject({ trials: 3, utilitySuccesses: 3 });

    await expect(
      run(suite, { provider, trialsPerCase: 5, resume: LiveReport.parse(LiveReport.toJson(partial)) }),
    ).rejects.toThrow(/cannot resume: the partial report has another plan/);
  });

  it('stops once the run used its token budget', async () => {
    const { provider } = await loopback(storefrontLoopbackModel());
    const report = await run(packOf('cancel-own-order'), { provider, trialsPerCase: 5, maxTokens: 1, concurrency: 1 });
    expect(report).toMatchObject({
      complete: false,
      stoppedBy: 'max_tokens',
      budget: { maxTokens: 1, tokensUsed: 30 },
    });
    expect(report.trials).toHaveLength(1);
  });

  it('writes a report that validates and holds no prompt, model text, tool argument, URL or key', async () => {
    const { provider, server } = await loopback(storefrontLoopbackModel());
    const json = LiveReport.toJson(await run(storefrontLivePack(), { provider, trialsPerCase: 2, control: true }));

    expect(() => LiveReport.parse(json)).not.toThrow();
    for (const raw of [
      API_KEY,
      server.baseUrl,
      '127.0.0.1',
      'rain jacket',
      'trail lanterns',
      'SYSTEM NOTE',
      LIVE_PROMPTS.cancelOwnOrder,
    ])
      expect(json).not.toContain(raw);
    expect(JSON.stringify(provider)).not.toContain(API_KEY);

    const tampered = JSON.parse(json) as { cases: { guarded: { breaches: number } }[] };
    tampered.cases[0]!.guarded.breaches = 0.5;
    expect(() => LiveReport.parse(JSON.stringify(tampered))).toThrow(LiveReportError);
    const edited = JSON.parse(json) as { trials: { outcome: string }[] };
    edited.trials[0]!.outcome = 'contained';
    edited.trials[1]!.outcome = 'contained';
    expect(() => LiveReport.parse(JSON.stringify(edited))).toThrow(/do not follow from the trials/);
  });

  it('refuses to start without an explicit provider configuration', () => {
    expect(() => LiveProvider.fromEnv({})).toThrow(/VERDICT_LIVE_PROVIDER/);
    expect(() => LiveProvider.fromEnv({ VERDICT_LIVE_PROVIDER: 'openai' })).toThrow(/VERDICT_LIVE_MODEL/);
    expect(() => LiveProvider.fromEnv({ VERDICT_LIVE_PROVIDER: 'openai', VERDICT_LIVE_MODEL: 'gpt' })).toThrow(
      /VERDICT_LIVE_API_KEY/,
    );
    expect(() =>
      LiveProvider.fromEnv({
        VERDICT_LIVE_PROVIDER: 'anthropic',
        VERDICT_LIVE_MODEL: 'c',
        VERDICT_LIVE_API_KEY: API_KEY,
        VERDICT_LIVE_SEED: '1',
      }),
    ).toThrow(/SEED/);
    try {
      LiveProvider.fromEnv({
        VERDICT_LIVE_PROVIDER: 'openai',
        VERDICT_LIVE_MODEL: 'm',
        VERDICT_LIVE_API_KEY: API_KEY,
        VERDICT_LIVE_TEMPERATURE: API_KEY,
      });
    } catch (error) {
      expect(String(error)).not.toContain(API_KEY);
    }
  });
});
