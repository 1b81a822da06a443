import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { ExecutionTargetPolicy, TargetStrategy } from '../targets/execution-target-policy.js';
import {
  alternatives,
  argumentJsonSchema,
  isUnconstrained,
  type JsonSchema,
} from '../provenance/provenance-candidate-schema.js';
import { isOptionalBoolean } from '../shared/optional-boolean.js';
import { isZodSchema } from './argument-schema.js';
import type { CapabilityDefinition } from './capability-definition.js';
import { dtoArgumentFields } from './dto-argument-fields.js';

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
  if (typeof policy.identity !== 'function')
    fail(`needs an execution-target identity function (policy ${policy.name}).`);
  if (policy.strategy === TargetStrategy.Refresh && typeof policy.refresh !== 'function')
    fail(`needs an execution-target refresh function (policy ${policy.name}).`);
  // Required by its type: an untyped caller (a `forRootAsync` factory, JavaScript) that leaves it out is told here.
  if (typeof definition.description !== 'string' || definition.description.trim() === '')
    fail('needs a non-blank description: what it does, for people and the model.');
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
  if (!isOptionalBoolean(definition.enforce))
    fail('has an `enforce` that is not a boolean: `enforce: false` runs it in shadow mode (docs/shadow-mode.md).');
  // A `'true'` would read as not mutating: no `verdict validate` finding, and not consequential under strict mode.
  if (!isOptionalBoolean(definition.mutates))
    fail('has a `mutates` that is not a boolean: `mutates: true` declares that its executor changes state.');
  assertAuthorizedFieldsExist(definition, fail);
}

/**
 * `authorizeFields` names top-level fields of the validated arguments; a name the schema does not declare would
 * never be checked, while the field meant goes unauthorized. The declared fields are read through any wrapper:
 * see {@link declaredArgumentFields}. Arguments whose fields cannot be read fail closed.
 */
function assertAuthorizedFieldsExist(definition: CapabilityDefinition, fail: (message: string) => never): void {
  const fields: unknown = definition.authorizeFields;
  if (fields === undefined) return;
  // `defineCapability` makes a left-out list `[]` and keeps anything else as given: `null` is no "left out".
  if (!Array.isArray(fields))
    fail(
      `has an authorizeFields that is ${fields === null ? 'null' : `a ${typeof fields}`}, not an array of argument field names: use authorizeFields: ['amount'], or leave it out.`,
    );
  if (fields.length === 0) return;
  for (const field of fields) {
    if (typeof field !== 'string' || field === '' || field.includes('.'))
      fail(`authorizeFields entry ${JSON.stringify(field)} must be a top-level argument field name.`);
  }
  const declared = declaredArgumentFields(definition);
  if (declared === null)
    fail(
      `has authorizeFields ${fields.map((field) => `"${field}"`).join(', ')}, but which fields its validated arguments hold cannot be read from its argument schema (it constrains nothing, or a transform or preprocess makes it from arguments that are not an object; for a DTO class, class-validator cannot be loaded), so a misspelt name would never be checked: declare the arguments as z.object({...}) or pipe the result into one (.pipe(z.object({...}))).`,
    );
  for (const field of fields) {
    if (!declared.has(field))
      fail(
        `authorizeFields names "${field}", which its argument schema does not declare (it declares ${describeFields(declared)}).`,
      );
  }
}

/**
 * The top-level fields of a capability's validated arguments; `null` when they cannot be read. A zod schema is
 * read through its wrappers (`.transform`, `.pipe`, `.optional`, `.default`, `z.lazy`, ...) by the JSON schema of
 * its output, each branch of a union or intersection contributing its properties. Where the output cannot be read
 * (a `.transform`'s result is the application's code, which may rename fields), they cannot be known: `null`. A DTO class declares the properties class-validator validates (see {@link dtoArgumentFields}).
 */
function declaredArgumentFields(definition: CapabilityDefinition): ReadonlySet<string> | null {
  if (!isZodSchema(definition.arguments))
    return dtoArgumentFields(definition.arguments as abstract new (...args: never[]) => object);
  return topLevelFields(argumentJsonSchema(definition, 'output'));
}

/** The properties of each branch of `schema`; `null` when a branch constrains nothing (or there is no schema). */
function topLevelFields(schema: JsonSchema | null): ReadonlySet<string> | null {
  if (schema === null) return null;
  const fields = new Set<string>();
  for (const branch of alternatives(schema)) {
    if (isUnconstrained(branch)) return null;
    for (const field of Object.keys((branch.properties ?? {}) as Record<string, unknown>)) fields.add(field);
  }
  return fields;
}

function describeFields(fields: ReadonlySet<string>): string {
  return fields.size === 0 ? 'no fields' : [...fields].map((field) => `"${field}"`).join(', ');
}
