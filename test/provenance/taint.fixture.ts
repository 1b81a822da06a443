import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { z } from 'zod';
import {
  type ActionContext,
  type AuthorizedAction,
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  Source,
  type TaintLedger,
  Trust,
  defineCapability,
  fromContext,
} from '@verdict/nestjs';
import type { ScriptStep } from '@verdict/nestjs/testing/langchain';
import { PRODUCT, alice } from './payments.fixture.js';
import { trackedAgentApp } from './tracked-agent.fixture.js';

/** The application's notes table, shared by every instance of the application (as a database would be). */
export type Notes = Map<string, string>;

/**
 * One instance of the application: products (reviews untrusted), notes the agent writes and reads back (their
 * results trusted: the application's own rows), and payments whose recipient must not come from untrusted
 * content. `ledger` is the taint ledger of this instance (another instance may share its database); `product` is
 * what `products.view` shows (default: {@link PRODUCT}, whose injected review names the attacker's IBAN).
 */
export async function notesAndPayments(options: {
  ledger?: TaintLedger;
  notes: Notes;
  tenant?: string;
  product?: typeof PRODUCT;
}) {
  const payments: AuthorizedAction<{ recipient: string; amount: number }>[] = [];
  const abilityFactory = {
    createForContext(context: ActionContext) {
      const { can, build } = new AbilityBuilder(createMongoAbility);
      can('read', 'Catalog');
      can('write', 'Notes');
      can('pay', 'Account', { owner: (context.actor as { id: string }).id });
      return build();
    },
  };
  const stale = (name: string) => ExecutionTargetPolicy.acceptStaleSnapshot({ name, identity: () => name });
  const account = { __caslSubjectType__: 'Account', id: 'acct-alice', owner: 'alice' };
  const capabilities = [
    defineCapability(
      {
        name: 'products.view',
        description: 'Show a product with its reviews',
        action: 'read',
        subject: 'Catalog',
        arguments: z.object({ productId: z.string() }),
        resolveTarget: fromContext(() => ({ __caslSubjectType__: 'Catalog', id: 'catalog' })),
        executionTarget: stale('catalog'),
        provenance: {
          results: {
            trust: Trust.Trusted,
            paths: { 'reviews.*.text': { trust: Trust.Untrusted, source: Source.external('product-reviews') } },
          },
        },
      },
      () => options.product ?? PRODUCT,
    ),
    defineCapability(
      {
        name: 'notes.save',
        description: 'Save a note',
        action: 'write',
        subject: 'Notes',
        arguments: z.object({ title: z.string(), text: z.string() }),
        resolveTarget: fromContext(() => ({ __caslSubjectType__: 'Notes', id: 'notes' })),
        executionTarget: stale('notes'),
        mutates: true,
        provenance: { results: { trust: Trust.Trusted } },
      },
      (action) => {
        options.notes.set(action.arguments.title, action.arguments.text);
        return { saved: action.arguments.title };
      },
    ),
    defineCapability(
      {
        name: 'notes.read',
        description: 'Read a note',
        action: 'write',
        subject: 'Notes',
        arguments: z.object({ title: z.string() }),
        resolveTarget: fromContext(() => ({ __caslSubjectType__: 'Notes', id: 'notes' })),
        executionTarget: stale('notes'),
        provenance: { results: { trust: Trust.Trusted } },
      },
      (action) => ({ title: action.arguments.title, text: options.notes.get(action.arguments.title) ?? null }),
    ),
    defineCapability(
      {
        name: 'payments.send',
        description: 'Send a payment from your account',
        action: 'pay',
        subject: 'Account',
        arguments: z.object({ recipient: z.string(), amount: z.number().positive() }),
        resolveTarget: fromContext(() => account),
        executionTarget: stale('account'),
        mutates: true,
        provenance: { untrustedContext: 'allow', arguments: { recipient: 'trusted_only' } },
      },
      (action) => {
        payments.push(action);
        return { paid: action.arguments.amount };
      },
    ),
  ];
  const evidence = new InMemoryEvidenceRecorder();
  const app = await trackedAgentApp({
    abilityFactory,
    evidence,
    publicMessage: 'Not done.',
    capabilities,
    approvals: new InMemoryApprovalReceiptStore(),
    provenance: options.ledger === undefined ? {} : { taint: { ledger: options.ledger } },
  });
  const boundTools = [
    app.bind('view_product', 'products.view', z.object({ productId: z.string() })),
    app.bind('save_note', 'notes.save', z.object({ title: z.string(), text: z.string() })),
    app.bind('read_note', 'notes.read', z.object({ title: z.string() })),
    app.bind('send_payment', 'payments.send', z.object({ recipient: z.string(), amount: z.number() })),
  ];
  const context: ActionContext = options.tenant === undefined ? alice : { ...alice, tenant: options.tenant };
  /** One turn of a real createAgent loop in a thread of its own: the scripted model proposes `script`. */
  const turn = (question: string, script: ScriptStep[]) => app.turn(context, question, script, boundTools);
  const decisions = (capability: string) =>
    evidence.decisions().filter((record) => record.stage === 'provenance' && record.capability === capability);
  return { payments, evidence, turn, decisions, close: app.close };
}

/** A tool call of the scripted model. */
export const call = (name: string, args: Record<string, unknown>, id: string) => ({ name, args, id });
