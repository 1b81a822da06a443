import { z } from 'zod';
import {
  type AuthorizedAction,
  type CapabilityDefinition,
  defineCapability,
  fromProposal,
  requiresConfirmation,
} from '@verdict/nestjs';
import type { Actor, Document, documentsFixture } from '../pipeline/documents.fixture.js';

/**
 * `documents.archive`: a capability that requires verified confirmation, over the documents fixture.
 * Approvals bind the actor, tenant, document and its title; approvers are checked against the owner.
 */
export function archiveCapability(
  fixture: ReturnType<typeof documentsFixture>,
  archived: AuthorizedAction[],
): CapabilityDefinition {
  return defineCapability(
    {
      name: 'documents.archive',
      description: 'Archive a document',
      action: 'read',
      subject: 'Document',
      arguments: z.object({ id: z.number().int(), note: z.string().optional() }),
      resolveTarget: fromProposal<{ id: number }, Document>(({ arguments: args, context }) =>
        fixture.load(context.tenant, args.id),
      ),
      executionTarget: fixture.refreshPolicy,
      requiresConfirmation: requiresConfirmation<{ id: number }, Document>({
        bind: ({ context }, doc) => ({
          actor: (context.actor as Actor).id,
          tenant: doc.tenant,
          doc: doc.id,
          title: doc.title,
        }),
        reason: 'Archiving hides the document from everyone.',
        ttlSeconds: 300,
        describe: (_envelope, doc) => `Archive document ${doc.id}`,
        subject: (_envelope, doc) => ({ owner: doc.owner, tenant: doc.tenant }),
      }),
    },
    (action) => {
      archived.push(action);
      return `archived ${action.target.id}`;
    },
  );
}
