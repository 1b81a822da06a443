import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { coversPath, parseReleasePath, renderPath } from '../context-release/release-path.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import type { InfluenceReport } from '../provenance/influence-report.js';
import { argumentJsonSchema } from '../provenance/provenance-candidate-schema.js';
import type { ProvenanceLabel } from '../provenance/provenance-label.js';
import { ProvenanceSourceKind } from '../provenance/provenance-source.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import type { PlanInForce, PlanStep } from './plan.js';

/** A record key of a proposal's arguments ({@link recordKeys}): the key, and its path. */
export interface RecordKey {
  readonly key: string;
  readonly segments: readonly string[];
}

/**
 * The record keys of a proposal and their influence analysis: `report` analyses the keys as an array of values (paths
 * `0`, `1`, … in the order of `keys`) with the inputs its values were analysed with — trusted set, taint ledger.
 */
export interface PlannedKeys {
  readonly keys: readonly RecordKey[];
  readonly report: InfluenceReport;
}

/** One value or record key of a proposal, as the plan check reads it. */
interface PlannedValue {
  /** The argument path as a refusal shows it. */
  readonly path: string;
  readonly segments: readonly string[];
  readonly derived: boolean;
  /** The untrusted sources it was found in; empty when found in none. */
  readonly found: readonly ProvenanceLabel[];
}

/**
 * Why a proposal is outside the plan in force ({@link planRefusal}): the reason a refusal gives, and whether the call
 * is refused for one of its values or record keys — the only refusal a trusted set (`trustedValues`) can lift, by
 * deriving that value from trusted content; not when no plan was accepted or the capability is in no step.
 */
export interface PlanRefusal {
  readonly reason: string;
  readonly byValue: boolean;
}

/**
 * Why a proposal is outside the plan in force, or `undefined` when it is within it: its capability is in no step,
 * or no one step of its capability covers the whole call — in each, one of its values, or a record key of its
 * arguments (a key the argument schema does not name as a property: `payees: { [iban]: true }`), is not derived from
 * trusted content and is found in a source the step does not name for its path (a value or key found in no untrusted
 * content — a short number, a computed value — counts as from every untrusted source of the window, the unobserved
 * one included; the unobserved source is never named, even when a plan lists it). A boolean or `null` carries no
 * value to trace; the key it sits under does. A call cannot take one step's sources for one argument and another
 * step's for the next. The reason names the plan by fingerprint, and the argument as `report` shows it: the
 * provenance stage hands a report whose paths the capability's provenance policy does not declare are
 * `#<sha256 prefix>` already (plan paths are model-written, never shown); a record key's path is always shown so.
 */
export function planRefusal(
  inForce: PlanInForce | null,
  definition: CapabilityDefinition,
  report: InfluenceReport,
  keys: PlannedKeys,
): PlanRefusal | undefined {
  if (inForce === null) return { reason: 'plan mode: no plan was accepted for this run', byValue: false };
  const name = `plan ${inForce.fingerprint.slice(0, 16)}`;
  const capability = definition.name;
  const steps = inForce.plan.steps.filter((step) => step.capability === capability);
  if (steps.length === 0) return { reason: `${name}: capability ${capability} is not in the plan`, byValue: false };
  const values: PlannedValue[] = [
    ...report.derivation.map((leaf) => ({
      ...leaf,
      found: report.arguments.find((influence) => influence.path === leaf.path)?.sources ?? [],
    })),
    ...keys.keys.map(({ segments }, i) => ({
      path: `#${fingerprintString(renderPath(segments)).slice(0, 16)}`,
      segments,
      derived: keys.report.derivation.find((leaf) => leaf.path === String(i))?.derived ?? false,
      found: keys.report.arguments.find((influence) => influence.path === String(i))?.sources ?? [],
    })),
  ];
  const outside = steps.map((step) => values.find((value) => !value.derived && !within(step, value, report)));
  if (outside.some((value) => value === undefined)) return undefined;
  return { reason: `${name}: argument ${outside[0]!.path} comes from a source the plan did not name`, byValue: true };
}

/**
 * Whether `step` names, for the value's path, every source it may come from: a value found in untrusted content
 * only in named sources; one found nowhere only when every untrusted source of the window is named for it.
 * Content Verdict did not see is no source a plan can name: an unobserved window is never within a plan.
 */
function within(step: PlanStep, value: PlannedValue, report: InfluenceReport): boolean {
  const named = Object.entries(step.arguments ?? {})
    .filter(([pattern]) => covers(pattern, value.segments))
    .flatMap(([, sources]) => sources);
  const origins = value.found.length > 0 ? value.found : report.untrustedSources;
  return origins.every(
    (label) => label.source.kind !== ProvenanceSourceKind.Unobserved && named.includes(label.source.toString()),
  );
}

/**
 * The record keys of `args` — every key the capability's argument schema does not name as a property anywhere; none
 * for a DTO class, whose schema Verdict cannot read (its validation refuses unknown fields). The provenance stage
 * analyses them as values of their own paths, with the inputs the values have (the trusted set, the taint ledger):
 * found in which untrusted sources, derived from trusted content or not. Provenance rules trace values only (ADR
 * 0136); a plan fixes where each argument comes from, and a key is as much an argument as its value.
 */
export function recordKeys(definition: CapabilityDefinition, args: unknown): readonly RecordKey[] {
  const properties = schemaNamesOf(definition);
  if (properties === null) return [];
  const keys: RecordKey[] = [];
  const walk = (value: unknown, segments: readonly string[]): void => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...segments, String(i)]));
    else if (isPlainObject(value))
      for (const [key, item] of Object.entries(value)) {
        if (!properties.has(key)) keys.push({ key, segments: [...segments, key] });
        walk(item, [...segments, key]);
      }
  };
  walk(args, []);
  return keys;
}

/**
 * The names of `definition`'s argument schema ({@link propertyNames}), or `null` when Verdict cannot read the schema
 * (a DTO class, a schema that does not convert). Converted and walked once per definition: the plan check reads them
 * on every call made under a plan, and a definition (its argument schema with it) does not change once registered.
 */
const schemaNames = new WeakMap<CapabilityDefinition, ReadonlySet<string> | null>();

function schemaNamesOf(definition: CapabilityDefinition): ReadonlySet<string> | null {
  const cached = schemaNames.get(definition);
  if (cached !== undefined) return cached;
  const schema = argumentJsonSchema(definition);
  const names = schema === null ? null : propertyNames(schema);
  schemaNames.set(definition, names);
  return names;
}

/** Every property name the JSON schema declares, at any depth (`$defs` included), and every string it fixes (`enum`, `const`). */
function propertyNames(schema: unknown, names = new Set<string>()): ReadonlySet<string> {
  if (Array.isArray(schema)) for (const item of schema) propertyNames(item, names);
  else if (typeof schema === 'object' && schema !== null) {
    const node = schema as Record<string, unknown>;
    if (isPlainObject(node.properties)) for (const key of Object.keys(node.properties)) names.add(key);
    // Every string the schema fixes (`enum`, `const`) may name a key: a record keyed by a union of literals or by an
    // enum kept in `$defs` lists them there, not under `propertyNames`. They are the application's words, not data.
    for (const value of [...(Array.isArray(node.enum) ? node.enum : []), node.const])
      if (typeof value === 'string') names.add(value);
    for (const value of Object.values(node)) propertyNames(value, names);
  }
  return names;
}

/** Whether the plan's path `pattern` covers the argument path `segments`; a path that does not parse covers nothing. */
function covers(pattern: string, segments: readonly string[]): boolean {
  try {
    return coversPath(parseReleasePath(pattern, 'plan argument'), segments);
  } catch {
    return false;
  }
}
