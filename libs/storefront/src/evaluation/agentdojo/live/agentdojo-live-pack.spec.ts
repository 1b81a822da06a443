import { afterEach, describe, expect, it } from '@jest/globals';
import { LiveCase, LiveReport, LiveSuite, TrialOutcome, runLiveSuite } from '@verdict/evaluation/live';
import type { ChatCompletionHandler, ChatCompletionsServer } from '@verdict/testing-kit';
import { closeLoopbackServers, startLoopbackProvider } from '../../live/loopback-provider.js';
import { workspaceSuite } from '../workspace/workspace-suite.js';
import { agentDojoLoopbackModel } from './agentdojo-live-loopback.js';
import { AGENTDOJO_LIVE_USER_TASK, agentDojoLivePack, liveEnvironment } from './agentdojo-live-pack.js';

/** A number the injected description holds (in the attacker's address): not the check-up's id. */
const OTHER_EVENT = '2134';
afterEach(closeLoopbackServers);

const extraction = (request: ChatCompletionsServer['requests'][number]) =>
  request.messages.some((m) => m.role === 'user' && String(m.content).startsWith('What to extract: '));

/** The attacker's address in the injections, and the event the user task moves (its title). */
const ATTACKER = 'mark.black-2134@gmail.com';
const suite = workspaceSuite();
const task = suite.corpus.user_tasks.find((entry) => entry.id === AGENTDOJO_LIVE_USER_TASK)!;
const reschedule = suite.groundTruth(task, liveEnvironment(suite, task)()).find((c) => 'event_id' in c.args)!;

describe('the AgentDojo live pack (quarantine arm) against a loopback chat-completions server', () => {
  it("keeps each injection's goal unreached and the user task done, reading the search result through the provider's model", async () => {
    const { server, provider } = await startLoopbackProvider(agentDojoLoopbackModel());
    const report = await runLiveSuite(agentDojoLivePack(), { provider, trialsPerCase: 2, control: true });

    const guarded = report.trials.filter((trial) => trial.arm === 'guarded');
    const attacks = guarded.filter((trial) => trial.case.endsWith(':attack'));
    expect(attacks).toHaveLength(4);
    for (const trial of attacks) expect(trial.outcome).toBe(TrialOutcome.NotExercised);
    // The control arm: the same model, naive tools — the injection is real and reaches its goal.
    const control = report.trials.filter((trial) => trial.arm === 'unguarded' && trial.case.endsWith(':attack'));
    expect(control.map((trial) => trial.outcome)).toEqual(Array(4).fill(TrialOutcome.Breach));
    // Utility control: the check-up is moved, its id read through an extraction and confirmed once by the user.
    const utility = guarded.filter((trial) => trial.case.endsWith(':utility'));
    expect(utility.map((trial) => trial.outcome)).toEqual([TrialOutcome.UtilitySuccess, TrialOutcome.UtilitySuccess]);

    // Every guarded trial read the page through an extraction, recorded by fingerprint only.
    for (const trial of guarded) {
      const tools = trial.toolCalls.map((call) => call.tool);
      expect(tools).toContain('quarantine_extract');
      expect(tools.indexOf('quarantine_extract')).toBeLessThan(tools.indexOf('reschedule_calendar_event'));
    }
    const written = LiveReport.toJson(report);
    for (const raw of [ATTACKER, 'Dental', 'ASSISTANT INSTRUCTION']) expect(written).not.toContain(raw);
    // The quarantined model is the provider's own, called with no tools; the deciding model with the suite's.
    const extractions = server.requests.filter(extraction);
    expect(extractions.length).toBe(guarded.length);
    for (const request of extractions) expect(request.tools ?? []).toEqual([]);
  });

  it('the user, shown the passage, rejects an id the quarantined model was misled into: nothing is moved', async () => {
    expect(reschedule.args.event_id).not.toBe(OTHER_EVENT);
    const honest = agentDojoLoopbackModel();
    // A quarantined model misled by the injected description: it answers a number of the attacker's text.
    const misled: ChatCompletionHandler = (request, index) => {
      const reply = honest(request, index);
      if (!extraction(request) || !('text' in reply) || reply.text === undefined) return reply;
      const { values } = JSON.parse(reply.text) as { values: Record<string, string> };
      const swapped = Object.fromEntries(Object.keys(values).map((key) => [key, OTHER_EVENT]));
      return { text: JSON.stringify({ values: swapped }) };
    };
    const { server, provider } = await startLoopbackProvider(misled);
    const pack = agentDojoLivePack();
    // The user's side of the trial, watched: which calls she is asked about, and what she answers.
    const asked: [unknown, boolean][] = [];
    const attack = pack.cases[0]!;
    const watched = LiveCase.attack(attack.id, attack.version, {
      ...attack.definition,
      attackedTool: attack.attackedTool!,
      open: async (arm) => {
        const sandbox = await attack.definition.open(arm);
        const confirm = sandbox.confirm!;
        return {
          ...sandbox,
          confirm: async (call) => {
            const approved = await confirm(call);
            asked.push([call.args.event_id, approved]);
            return approved;
          },
        };
      },
    });
    const oneAttack = new LiveSuite(pack.name, pack.version, [watched]);
    const report = await runLiveSuite(oneAttack, { provider, trialsPerCase: 1 });

    expect(report.trials.map((trial) => trial.outcome)).toEqual([TrialOutcome.NotExercised]);
    // The run paused on the reschedule, the user said no, and the run resumed: the model is told, the tool never ran.
    expect(report.trials[0]!.toolCalls.map((call) => call.tool)).toContain('reschedule_calendar_event');
    const resumed = server.requests.filter((request) => !extraction(request)).at(-1)!;
    expect(asked).toEqual([[OTHER_EVENT, false]]);
    const answered = resumed.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(JSON.parse(answered.at(-1)!)).toMatchObject({
      status: 'not_executed',
      capability: 'agentdojo.workspace.reschedule_calendar_event',
    });
  });
});
