import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { ExecutionTargetPolicy } from '../targets/execution-target-policy.js';
import { isZodSchema } from './argument-schema.js';
import type { CapabilityDefinition } from './capability-definition.js';

/** Limits of the evidence columns these names are stored in. */
const MAX_CAPABILITY_NAME = 255;
const MAX_POLICY_NAME = 64;

/**
 * Boot-time checks of a definition's shape, so that a wiring mistake stops the application starting
 * instead of failing (or failing open) at the first tool call.
 */
export function assertWellFormed(definition: CapabilityDefinition): void {
  const { name } = definition;
  if (typeof name !== 'string' || name.trim() === '' || name !== name.trim() || name.length > MAX_CAPABILITY_NAME) {
    throw new VerdictConfigurationError(
      `${definition.declaredAt}: a capability name must be a non-blank string of at most ${MAX_CAPABILITY_NAME} characters, without surrounding spaces.`,
    );
  }
  const fail = (message: string): never => {
    throw new VerdictConfigurationError(`Capability "${name}" (${definition.declaredAt}) ${message}`, {
      capability: name,
    });
  };
  const policy = definition.executionTarget;
  if (!(policy instanceof ExecutionTargetPolicy)) {
    fail(
      'has no execution-target policy: set executionTarget to ExecutionTargetPolicy.refresh(...) or ExecutionTargetPolicy.acceptStaleSnapshot(...).',
    );
  }
  if (typeof policy.name !== 'string' || policy.name.trim() === '' || policy.name.length > MAX_POLICY_NAME)
    fail(`needs an execution-target policy name of 1 to ${MAX_POLICY_NAME} characters.`);
  for (const key of ['action', 'subject'] as const) {
    if (typeof definition[key] !== 'string' || definition[key].trim() === '') fail(`needs a non-blank CASL ${key}.`);
  }
  if (!isZodSchema(definition.arguments) && typeof definition.arguments !== 'function')
    fail('needs an argument schema: a zod schema or a class-validator DTO class.');
  const resolver = definition.resolveTarget;
  if (
    resolver === undefined ||
    !['proposal', 'context'].includes(resolver.from) ||
    typeof resolver.resolve !== 'function'
  ) {
    fail('needs resolveTarget: fromProposal(...) or fromContext(...).');
  }
  if (definition.enforce !== undefined && typeof definition.enforce !== 'boolean')
    fail('has an `enforce` that is not a boolean: `enforce: false` runs it in shadow mode (docs/shadow-mode.md).');
  assertAuthorizedFieldsExist(definition, fail);
}

/** `authorizeFields` names top-level argument fields; a name the schema does not declare would never be checked. */
function assertAuthorizedFieldsExist(definition: CapabilityDefinition, fail: (message: string) => never): void {
  const shape = isZodSchema(definition.arguments)
    ? (definition.arguments as { shape?: Record<string, unknown> }).shape
    : undefined;
  for (const field of definition.authorizeFields ?? []) {
    if (typeof field !== 'string' || field === '' || field.includes('.'))
      fail(`authorizeFields entry ${JSON.stringify(field)} must be a top-level argument field name.`);
    if (shape !== undefined && !Object.hasOwn(shape, field))
      fail(`authorizeFields names "${field}", which its argument schema does not declare.`);
  }
}
