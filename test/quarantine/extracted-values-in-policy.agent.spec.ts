import { describe, expect, it } from '@jest/globals';
import {
  type Approver,
  DataClass,
  Destination,
  ReleasePolicy,
  Source,
  Trust,
  fingerprintString,
} from '@verdict/nestjs';
import { alice } from '../provenance/payments.fixture.js';
import { BILL, BILL_IBAN, TYPED_IBAN, billFixture, payTheBill } from './bill.fixture.js';

const BILL_ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });
const APPROVAL_UI = Destination.connection('approval-ui', 'staff');
const filesToApprovers = ReleasePolicy.route(Source.external('mcp.files'), APPROVAL_UI)
  .allow({ classes: [DataClass.Internal], trust: [Trust.Untrusted] })
  .detectWith([]);
const approver: Approver = { id: 'staff:7', context: { actor: { id: '7' }, tenant: 'acme' } };

describe('an extracted value in a consequential argument follows the capability’s provenance policy', () => {
  it('attack: the IBAN extracted from the bill is refused where the recipient must be trusted_only', async () => {
    const app = await billFixture([BILL_ANSWER], {
      payments: { untrustedContext: 'allow', arguments: { recipient: 'trusted_only' } },
    });
    const { model } = await app.turn('Pay the bill in bill.txt.', payTheBill());

    expect(app.payments).toEqual([]);
    expect(model.toolMessages()[2]?.content).toContain('not_executed');
    expect(app.evidence.decisions()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ capability: 'payments.send', stage: 'provenance', disposition: 'deny' }),
      ]),
    );
  });

  it('utility: an IBAN the user typed is accepted, with the extracted bill in the same window', async () => {
    const app = await billFixture([BILL_ANSWER], {
      payments: { untrustedContext: 'allow', arguments: { recipient: 'trusted_only' } },
    });
    await app.turn(`Pay the bill in bill.txt to my own account ${TYPED_IBAN}.`, payTheBill(TYPED_IBAN));

    expect(app.payments.map((payment) => payment.arguments)).toEqual([{ recipient: TYPED_IBAN, amount: 120 }]);
  });

  it('require_confirmation: the approver is shown the bill’s passage next to the extracted value, through context release', async () => {
    const app = await billFixture([BILL_ANSWER], {
      payments: { untrustedContext: 'allow', arguments: { recipient: 'require_confirmation' } },
      releasePolicies: [filesToApprovers],
    });
    await app.turn('Pay the bill in bill.txt.', payTheBill());
    expect(app.payments).toEqual([]);

    const challenge = (await app.approvals.challengeForToolCall('call_pay', alice))!;
    const value = fingerprintString(BILL_ANSWER);
    expect(challenge.provenance?.untrustedContent).toEqual([
      { fingerprint: value, source: expect.objectContaining({ kind: 'mcp', name: 'files' }) },
      {
        fingerprint: fingerprintString(BILL),
        source: expect.objectContaining({ kind: 'mcp', name: 'files' }),
        passageOf: value,
      },
    ]);
    const release = await app.approvals.untrustedContent(
      challenge.receiptId,
      approver,
      { destination: APPROVAL_UI },
      alice,
    );
    expect(release).toMatchObject({
      complete: true,
      items: [
        { status: 'released', text: BILL_ANSWER },
        { status: 'released', text: BILL, passageOf: value },
      ],
    });
  });
});
