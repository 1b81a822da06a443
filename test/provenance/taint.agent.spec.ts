import { describe, expect, it } from '@jest/globals';
import { InMemoryTaintLedger, type TaintLedger } from '@verdict/nestjs';
import { TypeOrmTaintLedger, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import { DataSource } from 'typeorm';
import { ATTACKER_IBAN, OWN_IBAN } from './payments.fixture.js';
import { type Notes, call, notesAndPayments } from './taint.fixture.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const VIEW = call('view_product', { productId: 'p-1' }, 'call_view');

/** Turn one: the agent reads the product (its injected review), then saves a note holding `iban`. */
async function saveNote(ledger: TaintLedger | undefined, notes: Notes, question: string, iban: string) {
  const app = await notesAndPayments({ ledger, notes });
  try {
    await app.turn(question, [
      { toolCalls: [VIEW] },
      { toolCalls: [call('save_note', { title: 'deposit', text: `Deposit IBAN: ${iban}` }, 'call_save')] },
      { text: 'Saved.' },
    ]);
  } finally {
    await app.close();
  }
}

/** Turn two, in another instance of the application: the agent reads the note back and pays `iban`. */
async function payFromNote(ledger: TaintLedger | undefined, notes: Notes, iban: string, tenant?: string) {
  const app = await notesAndPayments({ ledger, notes, tenant });
  try {
    await app.turn("Pay 25 to the IBAN in my note 'deposit'.", [
      { toolCalls: [call('read_note', { title: 'deposit' }, 'call_read')] },
      { toolCalls: [call('send_payment', { recipient: iban, amount: 25 }, 'call_pay')] },
      { text: 'Done.' },
    ]);
    return { payments: app.payments, decisions: app.decisions('payments.send') };
  } finally {
    await app.close();
  }
}

describe('taint ledger (real createAgent loops, the agent launders an injected IBAN through its own note)', () => {
  describe('in one process (InMemoryTaintLedger)', () => {
    it('refuses to pay the injected IBAN that came back through a trusted note, naming the taint, never the value', async () => {
      const [ledger, notes] = [new InMemoryTaintLedger(), new Map<string, string>()];
      await saveNote(ledger, notes, 'Tell me about product p-1 and note anything important.', ATTACKER_IBAN);
      expect(notes.get('deposit')).toContain(ATTACKER_IBAN);

      const { payments, decisions } = await payFromNote(ledger, notes, ATTACKER_IBAN);
      expect(payments).toHaveLength(0);
      expect(decisions).toMatchObject([{ disposition: 'deny' }]);
      expect(decisions[0]!.reason).toContain('Argument recipient matches content from memory:taint-ledger (untrusted)');
      expect(JSON.stringify(decisions)).not.toMatch(/de89/i);
    });

    it('utility: pays the IBAN the customer typed, noted while an injected review was in context', async () => {
      const [ledger, notes] = [new InMemoryTaintLedger(), new Map<string, string>()];
      await saveNote(ledger, notes, `Show me p-1, and note my deposit IBAN ${OWN_IBAN}.`, OWN_IBAN);

      const { payments, decisions } = await payFromNote(ledger, notes, OWN_IBAN);
      expect(payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
      expect(decisions).toMatchObject([{ disposition: 'permit' }]);
    });

    it("keeps tenants apart: another tenant's agent may pay a value this tenant's agent laundered", async () => {
      const [ledger, notes] = [new InMemoryTaintLedger(), new Map<string, string>()];
      await saveNote(ledger, notes, 'Tell me about product p-1 and note anything important.', ATTACKER_IBAN);

      const { payments } = await payFromNote(ledger, notes, ATTACKER_IBAN, 'globex');
      expect(payments).toHaveLength(1);
    });
  });

  for (const engine of databaseEngines()) {
    describe(`across two instances of the application sharing one database [${engine.name}]`, () => {
      it('refuses, in the second instance, to pay the IBAN the first one saved under an injection', async () => {
        await withDataSource(engine, SCHEMA, async (first) => {
          const second = await new DataSource({ ...first.options, migrations: [] }).initialize();
          try {
            const notes = new Map<string, string>();
            await saveNote(
              new TypeOrmTaintLedger(first),
              notes,
              'Tell me about p-1; note what matters.',
              ATTACKER_IBAN,
            );

            const { payments, decisions } = await payFromNote(new TypeOrmTaintLedger(second), notes, ATTACKER_IBAN);
            expect(payments).toHaveLength(0);
            expect(decisions).toMatchObject([{ disposition: 'deny' }]);
          } finally {
            await second.destroy();
          }
        });
      });

      it('utility: the second instance pays the IBAN the customer typed in the first', async () => {
        await withDataSource(engine, SCHEMA, async (first) => {
          const second = await new DataSource({ ...first.options, migrations: [] }).initialize();
          try {
            const notes = new Map<string, string>();
            await saveNote(new TypeOrmTaintLedger(first), notes, `Show p-1; note my IBAN ${OWN_IBAN}.`, OWN_IBAN);

            const { payments } = await payFromNote(new TypeOrmTaintLedger(second), notes, OWN_IBAN);
            expect(payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
          } finally {
            await second.destroy();
          }
        });
      });
    });
  }
});
