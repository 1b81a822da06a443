import { fingerprint } from '../fingerprints/fingerprint.js';
import type { ApproverProvenance, ApproverSource } from '../provenance/approver-provenance.js';

const REVIEWS: ApproverSource = {
  kind: 'external',
  name: 'product-reviews',
  trust: 'untrusted',
  description: 'external:product-reviews (untrusted)',
};

/** A provenance summary as the provenance stage builds it (trusted data only), for the store contract suites. */
export const APPROVER_PROVENANCE: ApproverProvenance = {
  observed: true,
  untrustedContext: true,
  untrustedSources: [REVIEWS],
  arguments: [{ path: 'recipient', sources: [REVIEWS] }],
  untrustedContent: [{ fingerprint: fingerprint('ünïcode review'), source: REVIEWS }],
  summary:
    'Untrusted content in context: external:product-reviews (untrusted). Argument recipient matches content from external:product-reviews (untrusted).',
};
