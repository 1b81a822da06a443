import { z } from 'zod';
import { isZodSchema } from '../capabilities/argument-schema.js';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { WILDCARD, parseReleasePath } from '../context-release/release-path.js';
import { MIN_CANDIDATE_LENGTH, MIN_CANDIDATE_NUMBER } from './argument-candidates.js';
import { declaredArgumentRules } from './provenance-argument-rules.js';
import { ProvenanceRule } from './provenance-rule.js';

/** A JSON schema, as `z.toJSONSchema` writes it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * Boot-time check that every argument rule and declared destination of a zod-typed capability names an argument of
 * its schema, and that every rule (a destination's positive rule too) is on one that can yield a value provenance
 * can trace. A path the schema does not name (a typo, `recipent`) would never match an argument, so the rule would
 * be silently skipped, even for a destination an explicit rule covers; a rule on a boolean, on strings
 * shorter than four characters (an enum of short codes, a `max(3)`), or on numbers bounded strictly between -1,000
 * and 1,000 (`min(1).max(999)`, `positive().lt(1000)`; a bare `lt(1000)` admits `-5000`) would never see a candidate
 * and so be inert (the positive rule: always fail). An `allow` rule is only checked for its path. A DTO
 * class's schema cannot be read: `verdict validate` reports such rules as unchecked (`provenance-rules-unchecked`).
 */
export function assertRulesCanSeeCandidates(definition: CapabilityDefinition, fail: (message: string) => void): void {
  const root = argumentJsonSchema(definition);
  if (root === null) return;
  // Every declared destination, also one an enforced explicit rule covers (`'*': 'allow'`), which takes that rule
  // and so is not among `declaredArgumentRules`: its path is the application's word all the same (ADR 0061).
  for (const path of definition.provenance?.destinations ?? [])
    if (resolve(root, parseReleasePath(path, 'provenance destination').segments).length === 0)
      fail(
        `has a provenance destination "${path}", which its argument schema does not name: it would never apply. Correct the path.`,
      );
  for (const { path, rule } of declaredArgumentRules(definition)) {
    const schemas = resolve(root, parseReleasePath(path, 'provenance argument').segments);
    if (schemas.length === 0)
      fail(
        `has a provenance rule for argument "${path}", which its argument schema does not name: the rule would never apply. Correct the path.`,
      );
    else if (rule !== ProvenanceRule.Allow && !schemas.some(canYieldCandidate))
      fail(
        `has a provenance rule for argument "${path}", whose schema never yields a value provenance can trace (a boolean, strings of fewer than ${MIN_CANDIDATE_LENGTH} characters, numbers bounded strictly between -${MIN_CANDIDATE_NUMBER} and ${MIN_CANDIDATE_NUMBER}): remove the rule, or widen the argument.`,
      );
  }
}

/**
 * The JSON schema of a zod-typed capability's validated arguments (`io: 'input'`: of the arguments it accepts);
 * `null` for a DTO class or a schema that does not convert.
 */
export function argumentJsonSchema(
  definition: CapabilityDefinition,
  io: 'input' | 'output' = 'output',
): JsonSchema | null {
  if (!isZodSchema(definition.arguments)) return null;
  try {
    return z.toJSONSchema(definition.arguments, { unrepresentable: 'any', io }) as JsonSchema;
  } catch {
    return null;
  }
}

/**
 * The subschemas a path addresses (`*`: every property or item); none when the schema does not name it. A schema
 * that constrains nothing (`z.unknown()`, `z.any()`) names every path below it.
 */
function resolve(schema: JsonSchema, segments: readonly string[]): JsonSchema[] {
  const branches = alternatives(schema);
  if (segments.length === 0) return branches;
  const [head, ...rest] = segments;
  return branches.flatMap((branch) => {
    if (isUnconstrained(branch)) return [branch];
    const properties = (branch.properties ?? {}) as Record<string, JsonSchema>;
    const children: JsonSchema[] = [];
    if (branch.items !== undefined && (head === WILDCARD || /^\d+$/u.test(head!)))
      children.push(branch.items as JsonSchema);
    if (head === WILDCARD) children.push(...Object.values(properties));
    else if (properties[head!] !== undefined) children.push(properties[head!]!);
    if (typeof branch.additionalProperties === 'object' && properties[head!] === undefined)
      children.push(branch.additionalProperties as JsonSchema);
    return children.flatMap((child) => resolve(child, rest));
  });
}

/** Whether a schema constrains nothing (`z.unknown()`, `z.any()`, what JSON Schema cannot represent). */
export function isUnconstrained(schema: JsonSchema): boolean {
  return [
    'type',
    'properties',
    'items',
    'additionalProperties',
    'enum',
    'const',
    'anyOf',
    'oneOf',
    'allOf',
    'not',
  ].every((keyword) => schema[keyword] === undefined);
}

/** The branches of a union or intersection, flattened; the schema itself when it is neither. */
export function alternatives(schema: JsonSchema): JsonSchema[] {
  const union = [schema.anyOf, schema.oneOf, schema.allOf].find(Array.isArray) as JsonSchema[] | undefined;
  return union === undefined ? [schema] : union.flatMap(alternatives);
}

/** Whether a value of this schema (or of its subtree) can be a candidate (`argumentLeaves`). */
function canYieldCandidate(schema: JsonSchema): boolean {
  const values = schema.enum ?? (schema.const !== undefined ? [schema.const] : undefined);
  if (Array.isArray(values)) return values.some((value) => isCandidateValue(value));
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : schema.type === undefined
      ? []
      : [schema.type as string];
  if (types.length === 0) {
    const branches = alternatives(schema);
    if (branches.length > 1) return branches.some(canYieldCandidate);
    if (schema.properties !== undefined)
      return Object.values(schema.properties as Record<string, JsonSchema>).some(canYieldCandidate);
    return true;
  }
  return types.some((type) => {
    if (type === 'string') return typeof schema.maxLength !== 'number' || schema.maxLength >= MIN_CANDIDATE_LENGTH;
    if (type === 'number' || type === 'integer') return numberCanBeCandidate(schema);
    if (type === 'array') return schema.items === undefined || canYieldCandidate(schema.items as JsonSchema);
    if (type === 'object')
      return (
        typeof schema.additionalProperties === 'object' ||
        Object.values((schema.properties ?? {}) as Record<string, JsonSchema>).some(canYieldCandidate)
      );
    return false;
  });
}

/**
 * Whether the schema's bounds admit a number of magnitude {@link MIN_CANDIDATE_NUMBER} or more: one at or above it, or
 * at or below its negative. An exclusive bound excludes its own value: `lt(1000)` (`exclusiveMaximum: 1000`) admits no
 * number from 1,000 up, `gt(-1000)` (`exclusiveMinimum: -1000`) none from -1,000 down.
 */
function numberCanBeCandidate(schema: JsonSchema): boolean {
  const reachesUp =
    isUnsetOr(schema.maximum, (max) => max >= MIN_CANDIDATE_NUMBER) &&
    isUnsetOr(schema.exclusiveMaximum, (max) => max > MIN_CANDIDATE_NUMBER);
  const reachesDown =
    isUnsetOr(schema.minimum, (min) => min <= -MIN_CANDIDATE_NUMBER) &&
    isUnsetOr(schema.exclusiveMinimum, (min) => min < -MIN_CANDIDATE_NUMBER);
  return reachesUp || reachesDown;
}

/** Whether a numeric bound is absent (not a number), or holds `admits`. */
function isUnsetOr(bound: unknown, admits: (bound: number) => boolean): boolean {
  return typeof bound !== 'number' || admits(bound);
}

function isCandidateValue(value: unknown): boolean {
  if (typeof value === 'string') return value.trim().length >= MIN_CANDIDATE_LENGTH;
  return typeof value === 'number' && Math.abs(value) >= MIN_CANDIDATE_NUMBER;
}
