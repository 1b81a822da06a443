import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { type ActionContext, ExecutionTargetPolicy, fromContext } from '@verdict/nestjs';

/**
 * The CASL side of a pack: one subject the actor owns (an account, a workspace), which every capability targets;
 * the actor may `read` and `act` on it, so CASL permits every call, injected or not, and only provenance tells
 * the attacker's calls apart. The actor also approves what a rule asks her to confirm.
 */
export function ownedSubject(subject: string, id: string, owner: string) {
  const instance = { __caslSubjectType__: subject, id, owner };
  const abilityFactory = {
    createForContext(context: ActionContext) {
      const { can, build } = new AbilityBuilder(createMongoAbility);
      can('read', subject, { owner: (context.actor as { id: string }).id });
      can('act', subject, { owner: (context.actor as { id: string }).id });
      // The owner confirms her own assistant's calls where a rule asks her (the AgentDojo quarantine arm).
      can('approve', 'Approval');
      return build();
    },
  };
  const target = {
    resolveTarget: fromContext(() => instance),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: subject.toLowerCase(), identity: () => id }),
    subject,
  };
  return { abilityFactory, target };
}
