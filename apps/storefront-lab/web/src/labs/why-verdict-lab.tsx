import capabilitySource from '../../../../../libs/storefront/src/capabilities/storefront.capabilities.ts?raw';
import refundSource from '../../../../../libs/storefront/src/capabilities/refund.capabilities.ts?raw';
import naiveCancelSource from '../../../../../libs/storefront/src/tools/cancel-order.tool.ts?raw';
import handSource from '../../../src/why-verdict/hand-secured-tools.ts?raw';
import payoutSource from '../../../src/provenance/payout.capabilities.ts?raw';
import { labApi } from '../api';
import { CodeView } from '../components/code-view';
import { Comparison } from '../components/comparison';
import { GuidedCase } from '../components/guided-case';
import { Status } from '../components/status';
import { useAction } from '../use-action';

const CASES = [
  {
    id: 'forgotten-tool',
    title: 'A second tool the developer forgot to scope',
    code: [
      { title: 'The hand-written cancel_order (never scoped)', source: naiveCancelSource, from: 'export function' },
      {
        title: 'The Verdict capability: orders.cancel',
        source: capabilitySource,
        from: '  @Capability({\n    name: StorefrontCapability.CancelOrder',
      },
    ],
  },
  {
    id: 'swapped-resource',
    title: 'The resource swapped between check and execution',
    code: [
      {
        title: 'The hand-secured cancel_order',
        source: handSource,
        from: 'export function handSecuredCancelOrder',
        to: '/**',
      },
      {
        title: 'The Verdict capability: orders.cancel',
        source: capabilitySource,
        from: '  @Capability({\n    name: StorefrontCapability.CancelOrder',
      },
    ],
  },
  {
    id: 'replayed-approval',
    title: 'An approval replayed',
    code: [
      { title: 'The hand-rolled confirmation', source: handSource, from: 'export function handConfirmedRefund' },
      { title: 'The Verdict capability: orders.refund', source: refundSource, from: '  @Capability({' },
    ],
  },
  {
    id: 'injected-review',
    title: 'An injected review steering the refund recipient',
    code: [
      {
        title: 'The hand-secured refund_to_account',
        source: handSource,
        from: 'export function handSecuredPayoutTools',
      },
      {
        title: 'The Verdict capability: orders.refund_to_account and its provenance policy',
        source: payoutSource,
        from: '/** The recipient of a payout',
      },
    ],
  },
] as const;

/** Why Verdict, not a scoped query: the cases where the hand-secured tool fails and Verdict does not. */
export function WhyVerdictLab() {
  return (
    <>
      <GuidedCase />
      <p className="lede">
        A scoped query is the right fix for one tool. These are the cases where a careful team's hand-secured tools
        still fail, and what Verdict does differently.
      </p>
      {CASES.map((which) => (
        <WhyVerdictCase key={which.id} which={which} />
      ))}
    </>
  );
}

function WhyVerdictCase({ which }: { which: (typeof CASES)[number] }) {
  const { data, loading, error, run } = useAction(labApi.whyVerdict);
  return (
    <section className="case" aria-labelledby={`case-${which.id}`}>
      <h3 id={`case-${which.id}`}>{which.title}</h3>
      <button type="button" id={`run-${which.id}`} disabled={loading} onClick={() => void run(which.id)}>
        Run this case
      </button>
      <Status loading={loading} error={error} />
      <div className="result-with-code">
        <div>{data !== undefined && <Comparison result={data} />}</div>
        <aside>
          {which.code.map((code) => (
            <CodeView key={code.title} {...code} />
          ))}
        </aside>
      </div>
    </section>
  );
}
