import { describe, expect, it } from '@jest/globals';
import {
  type ActionContext,
  type Approver,
  DataClass,
  Destination,
  ProvenanceLabels,
  ReleasePolicy,
  Source,
  Trust,
  fingerprintString,
  passagesOf,
} from '@verdict/nestjs';
import { alice } from '../provenance/payments.fixture.js';
import { BILL, BILL_IBAN, billFixture, payTheBill } from './bill.fixture.js';

/** Both tenants' bills are from the same utility: the quarantined model answers the same value for either. */
const BILL_ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });
/** Globex's own bill: another document, which holds the same IBAN and amount. */
const GLOBEX_BILL = [
  'INVOICE 2026-907, Hydro Utilities, Globex plant 3',
  'Amount due: EUR 120.00',
  `IBAN ${BILL_IBAN}`,
].join('\n');
/** Globex's requester: the same actor id as acme's alice, in another tenant (the payments fixture lets alice pay). */
const globex: ActionContext = { actor: { id: 'alice' }, tenant: 'globex', metadata: { conversationId: 'c-2' } };
const APPROVAL_UI = Destination.connection('approval-ui', 'staff');
const filesToApprovers = ReleasePolicy.route(Source.external('mcp.files'), APPROVAL_UI)
  .allow({ classes: [DataClass.Internal], trust: [Trust.Untrusted] })
  .detectWith([]);
const acmeApprover: Approver = { id: 'staff:7', context: { actor: { id: '7' }, tenant: 'acme' } };
const globexApprover: Approver = { id: 'staff:9', context: { actor: { id: '9' }, tenant: 'globex' } };

/** Acme's alice and globex's requester each pay the bill in their own file; each payment waits for an approver. */
async function twoTenants() {
  const app = await billFixture(
    [BILL_ANSWER, BILL_ANSWER],
    {
      payments: { untrustedContext: 'allow', arguments: { recipient: 'require_confirmation' } },
      releasePolicies: [filesToApprovers],
    },
    (path) => (path === 'globex.txt' ? GLOBEX_BILL : BILL),
  );
  /** What `approver` is released of the payment `requester` asked for: each text, and whose passage it is. */
  const shown = async (requester: ActionContext, approver: Approver) => {
    const challenge = (await app.approvals.challengeForToolCall('call_pay', requester))!;
    const release = await app.approvals.untrustedContent(
      challenge.receiptId,
      approver,
      { destination: APPROVAL_UI },
      requester,
    );
    return release.allowed ? release.items.map((item) => (item.status === 'released' ? item.text : item.status)) : [];
  };
  return { ...app, shown };
}

describe('an approver is shown the passages of the requester’s own extraction only', () => {
  it('attack: two tenants extract the same value from different files; each approver sees only its own tenant’s passage', async () => {
    const app = await twoTenants();
    await app.turn('Pay the bill in acme.txt.', payTheBill(undefined, 'acme.txt'));
    await app.turn('Pay the bill in globex.txt.', payTheBill(undefined, 'globex.txt'), { as: globex });
    expect(app.payments).toEqual([]);

    expect(await app.shown(globex, globexApprover)).toEqual([BILL_ANSWER, GLOBEX_BILL]);
    expect(await app.shown(alice, acmeApprover)).toEqual([BILL_ANSWER, BILL]);
    const challenge = (await app.approvals.challengeForToolCall('call_pay', globex))!;
    expect(challenge.provenance?.untrustedContent.map((reference) => reference.fingerprint)).not.toContain(
      fingerprintString(BILL),
    );
  });

  it('attack: the module’s shared labels of the value carry no passage another principal’s window could pick up', async () => {
    const app = await twoTenants();
    await app.turn('Pay the bill in acme.txt.', payTheBill(undefined, 'acme.txt'));

    const recalled = app.moduleRef.get(ProvenanceLabels).recall(BILL_ANSWER) ?? [];
    expect(recalled.map(({ label }) => [label.source.toString(), label.trust])).toEqual([['mcp:files', 'untrusted']]);
    expect(recalled.flatMap(passagesOf)).toEqual([]);
  });

  it('control: a single extraction’s approver sees the value and the passage it was read from', async () => {
    const app = await twoTenants();
    await app.turn('Pay the bill in globex.txt.', payTheBill(undefined, 'globex.txt'), { as: globex });

    expect(await app.shown(globex, globexApprover)).toEqual([BILL_ANSWER, GLOBEX_BILL]);
  });
});
