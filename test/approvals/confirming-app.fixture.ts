import {
  ActionContextStore,
  ApprovalService,
  type ApprovalReceiptStore,
  type AuthorizedAction,
  type ConfirmationPolicy,
  InMemoryEvidenceRecorder,
  VerdictService,
} from '@verdict/nestjs';
import { type Document, alice, documentsFixture } from '../pipeline/documents.fixture.js';

/**
 * `documents.archive` requiring confirmation (default `ttlSeconds` 300; `confirmation` overrides any option, typed or
 * not, as a JavaScript application may write it), booted on `store`, with a clock the test moves. Rejects as the
 * module's boot does.
 */
export async function confirmingApp(store: ApprovalReceiptStore, confirmation: Partial<ConfirmationPolicy> = {}) {
  const fixture = documentsFixture();
  let now = new Date('2026-01-01T10:00:00.000Z');
  const executed: AuthorizedAction[] = [];
  const capability = fixture.documentCapability(
    {
      name: 'documents.archive',
      description: 'Archive',
      requiresConfirmation: {
        bind: (_e, doc: Document) => ({ doc: doc.id }),
        reason: 'r',
        ttlSeconds: 300,
        ...confirmation,
      },
    },
    (action: AuthorizedAction) => {
      executed.push(action);
      return 'archived';
    },
  );
  const evidence = new InMemoryEvidenceRecorder();
  const { moduleRef } = await fixture.boot({
    capabilities: [capability],
    clock: () => now,
    approvals: store,
    evidence,
  });
  const verdict = moduleRef.get(VerdictService);
  const approvals = moduleRef.get(ApprovalService);
  const contexts = moduleRef.get(ActionContextStore);
  const requester = { ...alice, metadata: { conversationId: 'c1' } };
  /** Proposes archiving document 1 as alice, in conversation c1. */
  const propose = (toolCallId: string, options: { explicitApproval?: boolean; approvalBatch?: string } = {}) =>
    contexts.run(requester, () =>
      verdict.execute({ capability: 'documents.archive', arguments: { id: 1 }, toolCallId }, options),
    );
  /** Alice's pending challenge of `toolCallId`. */
  const challenge = async (toolCallId: string) => (await approvals.challengeForToolCall(toolCallId, requester))!;
  return {
    propose,
    challenge,
    approvals,
    requester,
    executed,
    evidence,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
    close: () => moduleRef.close(),
  };
}
