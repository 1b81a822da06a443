import type { AnyAbility } from '@casl/ability';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { alwaysEnforced } from '../decisions/always-enforced.js';
import { Decision } from '../decisions/decision.js';
import type { Stage } from '../decisions/stage.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import { subjectOf } from './subject-of.js';

function denied(
  ability: AnyAbility,
  stage: Stage,
  action: string,
  subject: unknown,
  field: string | undefined,
  what: string,
): Decision {
  // CASL's rule `reason` says why an inverted rule (`cannot`) matched; deny-by-default has no rule.
  const rule = ability.relevantRuleFor(action, subject as never, field);
  return Decision.deny(stage, rule?.reason ? `${what}: ${rule.reason}` : `${what}: no rule permits it`);
}

/**
 * Asks CASL about one target: `ability.can(action, target)`, then each proposed argument field the
 * capability names in `authorizeFields`. A target is typed by a `subject()` wrapper the resolver
 * applied, else by its class (entities) or as the capability's subject (plain objects) — never by a
 * type tag its data carries. A target of another subject type is denied.
 */
export function authorizeTarget(
  ability: AnyAbility,
  definition: CapabilityDefinition,
  target: unknown,
  args: unknown,
  stage: Stage,
): Decision {
  // What the target is, is integrity, not policy: shadow mode never softens these two (ADR 0098).
  if (typeof target !== 'object' || target === null)
    return alwaysEnforced(Decision.deny(stage, 'target is not an object'));
  const subject = subjectOf(definition.subject, target);
  const detected = ability.detectSubjectType(subject as never);
  if (detected !== definition.subject)
    return alwaysEnforced(
      Decision.deny(stage, `target is a ${String(detected)}, capability expects a ${definition.subject}`),
    );
  const { action } = definition;
  if (!ability.can(action, subject as never))
    return denied(ability, stage, action, subject, undefined, `${action} ${definition.subject} denied`);
  for (const field of definition.authorizeFields ?? []) {
    const proposed = isPlainObject(args) && Object.hasOwn(args, field) && args[field] !== undefined;
    if (proposed && !ability.can(action, subject as never, field)) {
      return denied(ability, stage, action, subject, field, `${action} ${definition.subject}.${field} denied`);
    }
  }
  return Decision.permit(stage);
}
