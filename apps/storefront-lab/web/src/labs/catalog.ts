import type { ComponentType } from 'react';
import { BudgetLab } from './budget-lab';
import { ClaimsLab } from './claims-lab';
import { ConfirmationLab } from './confirmation-lab';
import { CrossCustomerLab } from './cross-customer-lab';
import { DuplicateDeliveryLab } from './duplicate-delivery-lab';
import { EvaluationLab } from './evaluation-lab';
import { ForbiddenStatesLab } from './forbidden-states-lab';
import { LiveLab } from './live-lab';
import { McpLab } from './mcp-lab';
import { PayBillLab } from './pay-bill-lab';
import { ProvenanceLab } from './provenance-lab';
import { ReleaseLab } from './release-lab';
import { ReviewLaneLab } from './review-lane-lab';
import { SpendAndTokensLab } from './spend-and-tokens-lab';
import { WhyVerdictLab } from './why-verdict-lab';

/** One lab in the navigation: its route, its title, one line on what it shows, and its component. */
export interface LabEntry {
  readonly id: string;
  readonly title: string;
  readonly shows: string;
  readonly component: ComponentType;
}

/** A group of labs in the navigation: what they have in common, and their ids in order. */
export interface LabGroup {
  readonly title: string;
  readonly labs: readonly string[];
}

/** The navigation's groups: one row of them at desktop widths; every lab is in exactly one. */
export const LAB_GROUPS: readonly LabGroup[] = [
  { title: 'Start', labs: ['why-verdict', 'live'] },
  { title: 'Who may act', labs: ['cross-customer', 'release', 'mcp'] },
  { title: 'People decide', labs: ['confirmation', 'review-lane'] },
  { title: 'Across calls', labs: ['budget', 'spend-and-tokens', 'duplicate-delivery', 'forbidden-states'] },
  { title: 'Untrusted content', labs: ['provenance', 'quarantine'] },
  { title: 'Operate', labs: ['claims', 'evaluation'] },
];

/** The labs whose features exist; a lab joins this list when its feature does (no placeholder entries). */
export const LABS: readonly LabEntry[] = [
  { id: 'why-verdict', title: 'Why Verdict', shows: 'Where a scoped query is not enough', component: WhyVerdictLab },
  { id: 'cross-customer', title: 'Cross-customer', shows: "Another customer's order", component: CrossCustomerLab },
  { id: 'confirmation', title: 'Confirmation', shows: 'Approve exactly this refund, once', component: ConfirmationLab },
  { id: 'budget', title: 'Budget', shows: 'A permission is not a budget', component: BudgetLab },
  {
    id: 'spend-and-tokens',
    title: 'Spend & tokens',
    shows: 'What each budget has left, and past it',
    component: SpendAndTokensLab,
  },
  {
    id: 'duplicate-delivery',
    title: 'Duplicate delivery',
    shows: 'A new id is not a new operation',
    component: DuplicateDeliveryLab,
  },
  { id: 'release', title: 'Release', shows: 'A provider name is not a trust boundary', component: ReleaseLab },
  { id: 'mcp', title: 'MCP', shows: 'Each MCP user lists only its tools', component: McpLab },
  {
    id: 'forbidden-states',
    title: 'Forbidden states',
    shows: 'Each call fine, the chain is not',
    component: ForbiddenStatesLab,
  },
  {
    id: 'provenance',
    title: 'Provenance',
    shows: 'An injected review steering a refund',
    component: ProvenanceLab,
  },
  {
    id: 'quarantine',
    title: 'Quarantine',
    shows: 'Pay the bill in a file, with and without quarantine',
    component: PayBillLab,
  },
  { id: 'review-lane', title: 'Review lane', shows: 'Staff approve a large refund', component: ReviewLaneLab },
  { id: 'evaluation', title: 'Evaluation', shows: 'The attack pack, scored', component: EvaluationLab },
  { id: 'claims', title: 'Claims', shows: 'The operator CLI, in the page', component: ClaimsLab },
  { id: 'live', title: 'Live model', shows: 'A real model proposes the call', component: LiveLab },
];
