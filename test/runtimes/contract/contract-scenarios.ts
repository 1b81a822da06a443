import { expect } from '@jest/globals';
import {
  type ActionContext,
  ApplicationFaultError,
  UnreleasedContextError,
  readNotExecutedMessage,
} from '@verdict/nestjs';
import { alice, bob } from '../../pipeline/documents.fixture.js';
import { ATTACKER_ACCOUNT, type ContractApp, OWN_ACCOUNT } from './contract-app.js';
import { type ContractCall, type ContractTurn, type RuntimeDriver, causesOf } from './runtime-driver.js';

/** One behaviour every runtime must show, written once: `run` drives it through `driver` in a fresh `app`. */
export interface ContractScenario {
  readonly title: string;
  run(driver: RuntimeDriver, app: ContractApp): Promise<void>;
}

const call = (name: ContractCall['name'], input: Record<string, unknown>, id: string): ContractTurn => ({
  toolCalls: [{ name, input, id }],
});
const decisionOf = (answer: string | undefined) => readNotExecutedMessage(answer ?? '')?.decision;
const publicAnswer = (capability: string, decision: string) =>
  JSON.stringify({ status: 'not_executed', capability, decision, message: 'Not done.' });

/** Starts a conversation in `app` through `driver`: the model answers `turns`, `who` asks `message`. */
async function converse(
  driver: RuntimeDriver,
  app: ContractApp,
  who: ActionContext,
  message: string,
  turns: ContractTurn[],
) {
  const conversation = await driver.conversation(app, turns);
  const run = await conversation.start(who, message);
  return { conversation, run };
}

const ARCHIVE = call('archive_document', { id: 1 }, 'call_archive_1');
/** Alice asks to archive document 1 (it requires confirmation): the run pauses, and a human approves in Verdict. */
async function pausedArchive(driver: RuntimeDriver, app: ContractApp) {
  const { run } = await converse(driver, app, alice, 'Archive document 1.', [
    ARCHIVE,
    { text: 'Archived.' },
    { text: 'Archived.' },
  ]);
  expect(run.failure).toBeUndefined();
  expect(run.paused).not.toBeNull();
  expect(app.archived).toHaveLength(0);
  await app.approveInVerdict('call_archive_1', alice);
  return run.paused!;
}

/**
 * Alice reads the comments on document 1 (one is injected, with an account number) and the model sends the
 * document to `recipient` with `tool`.
 */
function sendAfterComments(driver: RuntimeDriver, app: ContractApp, message: string, sends: ContractTurn[]) {
  return converse(driver, app, alice, message, [
    call('read_comments', { id: 1 }, 'call_comments'),
    ...sends,
    { text: 'Sent.' },
  ]);
}

/**
 * Alice reads the comments on document 1 and the model shares it with the account the injected comment names:
 * `documents.share` asks a human first, so the run pauses with nothing sent and a receipt awaiting the decision.
 */
async function pausedShare(driver: RuntimeDriver, app: ContractApp) {
  const { run } = await sendAfterComments(driver, app, 'Read me the comments on document 1.', [
    call('share_document', { id: 1, recipient: ATTACKER_ACCOUNT }, 'call_share'),
  ]);
  expect(run.failure).toBeUndefined();
  expect(run.paused).not.toBeNull();
  expect(app.sent).toHaveLength(0);
  expect(app.decisions('documents.share').at(-1)).toMatchObject({
    stage: 'approval',
    disposition: 'require_confirmation',
  });
  return run.paused!;
}

/** The contract: the same scenarios for LangChain, the Vercel AI SDK and OpenAI Agents. */
export const CONTRACT_SCENARIOS: readonly ContractScenario[] = [
  {
    title: 'cross-customer: another customer’s document is refused; the model reads only the public answer (attack)',
    async run(driver, app) {
      const { run } = await converse(driver, app, bob, 'Show me document 1.', [
        call('read_document', { id: 1 }, 'call_cross'),
        { text: 'I cannot show it.' },
      ]);
      expect(run.failure).toBeUndefined();
      expect(run.toolAnswers).toEqual([publicAnswer('documents.read', 'deny')]);
      expect(app.fixture.executions).toHaveLength(0);
    },
  },
  {
    title: 'cross-customer control: the customer’s own document is read',
    async run(driver, app) {
      const { run } = await converse(driver, app, bob, 'Show me document 2.', [
        call('read_document', { id: 2 }, 'call_own'),
        { text: 'Here it is.' },
      ]);
      expect(run.toolAnswers).toEqual([JSON.stringify({ id: 2, title: 'bob plan' })]);
      expect(app.fixture.executions).toHaveLength(1);
    },
  },
  {
    title: 'an approval delivered with changed arguments is refused: nothing runs (attack)',
    async run(driver, app) {
      const paused = await pausedArchive(driver, app);
      const resumed = await paused.resume(alice, { id: 1, note: 'and the rest' });
      // The changed call answers `require_confirmation`; where a guard seals the history, the edited history then
      // fails the next model call too.
      if (driver.sealsHistory) expect(resumed.failure).toBeInstanceOf(UnreleasedContextError);
      else expect(resumed.failure).toBeUndefined();
      expect(resumed.toolAnswers.map(decisionOf)).toEqual(['require_confirmation']);
      expect(app.archived).toHaveLength(0);
    },
  },
  {
    title: 'approval control: the approved call with the same arguments runs once',
    async run(driver, app) {
      const paused = await pausedArchive(driver, app);
      const resumed = await paused.resume(alice);
      expect(resumed.toolAnswers).toEqual(['archived 1']);
      expect(app.archived).toHaveLength(1);
    },
  },
  {
    title: 'a replayed approval is refused: the receipt is single-use (attack)',
    async run(driver, app) {
      const paused = await pausedArchive(driver, app);
      expect((await paused.resume(alice)).toolAnswers).toEqual(['archived 1']);
      const replayed = await paused.resume(alice);
      expect(replayed.toolAnswers.map(decisionOf)).toEqual(['deny']);
      expect(app.archived).toHaveLength(1);
    },
  },
  {
    title: 'a duplicated delivery of the approval executes once (attack)',
    async run(driver, app) {
      const paused = await pausedArchive(driver, app);
      const deliveries = await Promise.all([paused.resume(alice), paused.resume(alice)]);
      const answers = deliveries.flatMap((delivery) => delivery.toolAnswers);
      expect(answers.filter((answer) => answer === 'archived 1')).toHaveLength(1);
      expect(answers.filter((answer) => answer !== 'archived 1').map(decisionOf)).toEqual(['deny']);
      expect(app.archived).toHaveLength(1);
    },
  },
  {
    // Holds with or without a provenance window: an observed window shows the recipient came from the injected
    // comment; an unobserved one is taken as influenced (ADR 0082).
    title: 'a value injected by third-party content is refused by provenance (attack)',
    async run(driver, app) {
      const { run } = await sendAfterComments(driver, app, 'Read me the comments on document 1.', [
        call('send_document', { id: 1, recipient: ATTACKER_ACCOUNT }, 'call_send'),
      ]);
      expect(run.toolAnswers.map(decisionOf)).toEqual([undefined, 'deny']);
      const refused = app.decisions('documents.send').at(-1);
      expect(refused).toMatchObject({ stage: 'provenance', disposition: 'deny' });
      // An observed window names where the recipient came from: the comments' declared source.
      if (driver.observesProvenance)
        expect(refused?.reason).toContain('Argument recipient matches content from external:document-comments');
      expect(app.sent).toHaveLength(0);
    },
  },
  {
    // UTILITY DEPENDS ON THE PROVENANCE WINDOW. A runtime whose runs a tracker observes (every driver here) sends
    // to the account the customer typed, through the capability with the rule. A driver without one cannot tell
    // the customer's value from an injected one: the rule refuses it too, and only a capability without that rule
    // (`documents.forward`) serves the customer.
    title: 'provenance control: the value the customer typed is sent',
    async run(driver, app) {
      const own = { id: 1, recipient: OWN_ACCOUNT };
      const message = `Send document 1 to my account ${OWN_ACCOUNT}, after reading me its comments.`;
      if (driver.observesProvenance) {
        const { run } = await sendAfterComments(driver, app, message, [call('send_document', own, 'call_send')]);
        expect(run.toolAnswers.at(-1)).toBe('sent 1');
      } else {
        const { run } = await sendAfterComments(driver, app, message, [
          call('send_document', own, 'call_send'),
          call('forward_document', own, 'call_forward'),
        ]);
        expect(run.toolAnswers.slice(1, 2).map(decisionOf)).toEqual(['deny']);
        expect(app.decisions('documents.send').at(-1)).toMatchObject({ stage: 'provenance' });
        expect(run.toolAnswers.at(-1)).toBe('sent 1');
      }
      expect(app.sent).toHaveLength(1);
    },
  },
  {
    // ADR 0127: the AI SDK and Agents ask before they execute; a confirmation only provenance requires is asked too.
    title: 'a confirmation only provenance requires pauses the run; approved in Verdict, the call runs once (control)',
    async run(driver, app) {
      const paused = await pausedShare(driver, app);
      await app.approveInVerdict('call_share', alice);
      const resumed = await paused.resume(alice);
      expect(resumed.toolAnswers.at(-1)).toBe('sent 1');
      expect(app.sent.map((action) => action.arguments)).toEqual([{ id: 1, recipient: ATTACKER_ACCOUNT }]);
    },
  },
  {
    title: 'a confirmation only provenance requires: the runtime’s approval alone sends nothing (attack)',
    async run(driver, app) {
      const paused = await pausedShare(driver, app);
      const resumed = await paused.resume(alice);
      expect(decisionOf(resumed.toolAnswers.at(-1))).toBe('require_confirmation');
      expect(app.sent).toHaveLength(0);
    },
  },
  {
    title: 'an application fault fails the run and is never shown to the model',
    async run(driver, app) {
      const fault = new Error('connection to db-primary:5432 refused');
      app.fixture.hooks.onResolve = () => {
        throw fault;
      };
      const { run, conversation } = await converse(driver, app, bob, 'Show me document 2.', [
        call('read_document', { id: 2 }, 'call_fault'),
        { text: 'unreachable' },
      ]);
      const applicationFault = causesOf(run.failure).find((error) => error instanceof ApplicationFaultError);
      expect((applicationFault as ApplicationFaultError | undefined)?.cause).toBe(fault);
      // The model was asked once, before the call; no next input carries the fault.
      expect(conversation.modelInputs()).toHaveLength(1);
      expect(conversation.modelInputs().join('\n')).not.toContain('db-primary');
    },
  },
];
