import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { WILDCARD, parseReleasePath } from '../context-release/release-path.js';
import { declaredArgumentRules } from './provenance-argument-rules.js';
import { alternatives, argumentJsonSchema, isUnconstrained, type JsonSchema } from './provenance-candidate-schema.js';
import { ProvenanceRule } from './provenance-rule.js';

/**
 * The paths of `definition`'s provenance argument rules (all but `allow`) and destinations that reach keys the model
 * writes: a record keyed by any string (`z.record(z.string(), …)`), a loose object, a catch-all, or a schema that
 * constrains nothing (`z.unknown()`, a `z.map`), on the path or below it. Provenance traces the values there, never
 * the keys, so a value copied from untrusted content into a key escapes the rule (ADR 0136). Keys named by an enum or
 * literals are the application's. References within the schema (`$defs`: recursive and reused schemas) are followed.
 * None for a DTO class's arguments, which Verdict cannot read, or a schema that does not convert.
 */
export function recordKeyedRulePaths(definition: CapabilityDefinition): readonly string[] {
  const root = argumentJsonSchema(definition);
  if (root === null) return [];
  const paths = declaredArgumentRules(definition)
    .filter(({ rule }) => rule !== ProvenanceRule.Allow)
    .map(({ path }) => path)
    .filter((path) =>
      reached(root, root, parseReleasePath(path, 'provenance argument').segments, false).some(
        ({ schema, viaKey }) => viaKey || keysBelow(root, schema, new Set()),
      ),
    );
  return [...new Set(paths)];
}

/** The subschemas `segments` address, each with whether the path went through a key the model writes. */
function reached(
  root: JsonSchema,
  schema: JsonSchema,
  segments: readonly string[],
  viaKey: boolean,
): Array<{ readonly schema: JsonSchema; readonly viaKey: boolean }> {
  const branches = branchesOf(root, schema);
  if (segments.length === 0) return branches.map((branch) => ({ schema: branch, viaKey }));
  const [head, ...rest] = segments;
  const index = /^\d+$/u.test(head!) ? Number(head) : null;
  return branches.flatMap((branch) => {
    if (isUnconstrained(branch)) return [{ schema: branch, viaKey: true }];
    const properties = (branch.properties ?? {}) as Record<string, JsonSchema>;
    const tuple = Array.isArray(branch.prefixItems) ? (branch.prefixItems as JsonSchema[]) : [];
    const children: JsonSchema[] = [];
    if (head === WILDCARD) children.push(...Object.values(properties), ...tuple);
    else if (properties[head!] !== undefined) children.push(properties[head!]!);
    if (index !== null && tuple[index] !== undefined) children.push(tuple[index]!);
    if (typeof branch.items === 'object' && (head === WILDCARD || index !== null))
      children.push(branch.items as JsonSchema);
    const below = children.flatMap((child) => reached(root, child, rest, viaKey));
    const extra = extraPropertiesOf(branch);
    if (extra !== null && properties[head!] === undefined && opensKeys(root, branch))
      below.push(...reached(root, extra, rest, true));
    return below;
  });
}

/** Whether this schema, or one below it, admits keys the model writes. */
function keysBelow(root: JsonSchema, schema: JsonSchema, seen: Set<JsonSchema>): boolean {
  return branchesOf(root, schema).some((branch) => {
    if (seen.has(branch)) return false;
    seen.add(branch);
    if (isUnconstrained(branch) || opensKeys(root, branch)) return true;
    const extra = extraPropertiesOf(branch);
    const children = [
      ...Object.values((branch.properties ?? {}) as Record<string, JsonSchema>),
      ...(Array.isArray(branch.prefixItems) ? (branch.prefixItems as JsonSchema[]) : []),
      ...(typeof branch.items === 'object' && branch.items !== null ? [branch.items as JsonSchema] : []),
      ...(extra === null ? [] : [extra]),
    ];
    return children.some((child) => keysBelow(root, child, seen));
  });
}

/**
 * Whether an object of this schema may hold keys beyond those it declares that no enum or literal names: extra
 * properties admitted (a schema for them, `true`, or nothing said of them on an object, as an intersection with a
 * loose object leaves it), or properties by pattern.
 */
function opensKeys(root: JsonSchema, schema: JsonSchema): boolean {
  if (schema.patternProperties !== undefined) return true;
  const extra = schema.additionalProperties;
  const object = schema.type === 'object' || schema.properties !== undefined;
  const open = typeof extra === 'object' || extra === true || (extra === undefined && object);
  return open && !namesFixed(root, schema.propertyNames as JsonSchema | undefined);
}

/** Whether `names` (a `propertyNames` schema) allows only listed names: each branch an enum or a literal. */
function namesFixed(root: JsonSchema, names: JsonSchema | undefined): boolean {
  if (names === undefined) return false;
  return branchesOf(root, names).every((branch) => branch.enum !== undefined || branch.const !== undefined);
}

/** The schema of an object's extra properties: its `additionalProperties` schema, `{}` for `true`; else `null`. */
function extraPropertiesOf(schema: JsonSchema): JsonSchema | null {
  const extra = schema.additionalProperties;
  if (typeof extra === 'object' && extra !== null) return extra as JsonSchema;
  return extra === true ? {} : null;
}

/** The branches of a schema (see `alternatives`) with each local reference (`#`, `#/$defs/…`) replaced by its target. */
function branchesOf(root: JsonSchema, schema: JsonSchema, following: ReadonlySet<string> = new Set()): JsonSchema[] {
  return alternatives(schema).flatMap((branch) => {
    const ref = branch.$ref;
    if (typeof ref !== 'string') return [branch];
    // A reference already being followed (a cycle) or one that does not resolve constrains nothing here.
    const target = following.has(ref) ? undefined : dereference(root, ref);
    return target === undefined ? [{}] : branchesOf(root, target, new Set([...following, ref]));
  });
}

function dereference(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (ref === '#') return root;
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/u.exec(ref);
  if (match === null) return undefined;
  return ((root[match[1]!] ?? {}) as Record<string, JsonSchema>)[
    decodeURIComponent(match[2]!.replaceAll('~1', '/').replaceAll('~0', '~'))
  ];
}
