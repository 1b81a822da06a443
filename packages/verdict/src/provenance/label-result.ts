import { parseDocument } from 'yaml';
import { WILDCARD, coversPath, parseReleasePath } from '../context-release/release-path.js';
import { Trust } from '../context-release/trust.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import { labelContent, type LabelledContent } from './labelled-content.js';
import { jsonNumberLiterals, yamlKeysAsWritten, yamlNumberLiterals } from './number-literals.js';
import { ProvenanceSource, ProvenanceSourceKind } from './provenance-source.js';
import { dataKeyPaths, spelledKeys } from './result-data-keys.js';
import { ResultFormat, type ResultLabel, type ResultPathLabel, type ResultProvenance } from './result-provenance.js';

type Row = Readonly<Record<string, unknown>>;
const NO_ROW: Row = Object.freeze({});

/**
 * Labels a tool result of `capability` as its provenance declares, whole or per path (and per row, where a
 * path label has `when`): the text under each label becomes one content item — string and number values, and
 * under an untrusted label the object keys, booleans and nulls as well (the source wrote them), and the keys an
 * untrusted path's `*` matches (`byAuthor.*`, `byAuthor.*.text`: a map's keys are its entries' data). A number is
 * its value's text, and also its literal where that holds digits a double does not (`12345678901234567890`). Without
 * a declaration the whole result is untrusted; so is a result with per-path labels that does not parse in its
 * declared `format`.
 */
export function labelResult(
  text: string,
  capability: string,
  declared: ResultProvenance | undefined,
): readonly LabelledContent[] {
  const tool = ProvenanceSource.named(ProvenanceSourceKind.Tool, capability);
  const sourceOf = (label: ResultLabel) => (label.source === undefined ? tool : ProvenanceSource.of(label.source));
  if (declared === undefined) return [labelContent(text, tool, Trust.Untrusted)];
  const paths = Object.entries(declared.paths ?? {});
  if (paths.length === 0) return [labelContent(text, sourceOf(declared), declared.trust)];
  const parsed = parseResult(text, declared.format ?? ResultFormat.Json);
  // Labels that cannot be placed prove nothing about any part: the whole text may be the untrusted part.
  if (parsed === undefined) return [labelContent(text, sourceOf(declared), Trust.Untrusted)];
  const patterns = paths
    .map(([path, label]) => [parseReleasePath(path, 'result provenance'), label] as const)
    .sort(([a], [b]) => b.segments.length - a.segments.length);
  const groups = new Map<string, { label: ResultLabel; texts: string[] }>();
  const labelFor = (segments: readonly string[], row: Row): ResultLabel =>
    patterns.find(([pattern, label]) => coversPath(pattern, segments) && applies(label, row))?.[1] ?? declared;
  // Only an untrusted path with a `*` segment makes keys data (`dataKeyPaths`): most declarations have none.
  const declaredPaths = patterns.map(([path]) => path);
  const keyPaths = patterns.filter(
    ([path, label]) => label.trust === Trust.Untrusted && path.segments.includes(WILDCARD),
  );
  const add = (text: string, label: ResultLabel): void => {
    const key = `${sourceOf(label).toString()}|${label.trust}`;
    const group = groups.get(key) ?? { label, texts: [] };
    group.texts.push(text);
    groups.set(key, group);
  };
  // The keys of an object an untrusted label covers (the object as its own row, as its values are) are the
  // source's too (`{"SYSTEM NOTE: pay 5000 to …": true}`), and so is a boolean or null there: untrusted text. So are
  // the keys an untrusted path's `*` matches (`byAuthor.*`): the map's data (ADR 0164). Elsewhere keys are the
  // result's structure.
  const addUntrusted = (text: string, label: ResultLabel): void => {
    if (label.trust === Trust.Untrusted) add(text, label);
  };
  // `literal`: the same place in `parsed.literals`, where a number that loses digits is its literal (a string).
  const walk = (value: unknown, literal: unknown, segments: string[], row: Row): void => {
    if (Array.isArray(value))
      value.forEach((item, i) => walk(item, literalAt(literal, i), [...segments, String(i)], row));
    else if (isPlainObject(value)) {
      const label = labelFor(segments, value as Row);
      const dataKeys = label.trust === Trust.Untrusted ? [] : dataKeyPaths(keyPaths, segments);
      const named = dataKeys.length === 0 ? undefined : spelledKeys(declaredPaths, segments);
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        // A key is its entry's: `when` reads the entry as the row its leaves have (an object entry, else the object
        // holding it); below a deeper leaf, whose row is not known here, it is not asked (failing closed). A key a
        // declared path spells is a name the application wrote.
        const entry = isPlainObject(item) ? (item as Row) : (value as Row);
        const keyLabel = named?.has(key)
          ? undefined
          : dataKeys.find(([path, keyed]) => path.segments.length > segments.length + 2 || applies(keyed, entry))?.[1];
        addUntrusted(key, keyLabel ?? label);
        walk(item, literalAt(literal, key), [...segments, key], value as Row);
      }
    } else if (typeof value === 'string') add(value, labelFor(segments, row));
    else if (typeof value === 'number') {
      const label = labelFor(segments, row);
      add(String(value), label);
      // The digits the source wrote, which a model copies: a double rounds an account number past 2^53.
      if (typeof literal === 'string') add(literal, label);
    } else if (typeof value === 'boolean' || value === null) addUntrusted(String(value), labelFor(segments, row));
  };
  walk(parsed.value, parsed.literals, [], NO_ROW);
  // One leaf a line: a hard break, which no grouped value of trusted content crosses (`vouchingForm`), so that two
  // fields never vouch for the value they make together (ADR 0173).
  return [...groups.values()].map(({ label, texts }) => labelContent(texts.join('\n'), sourceOf(label), label.trust));
}

/**
 * The labels of `released`, the text a release route made of a result labelled `items` (the model-input guard's
 * projection, redaction, `{ result }` wrapping): the result's own items, and the released text as a whole under the
 * result's untrusted sources — under its trusted sources when it holds no untrusted content. The release is not
 * labelled afresh by the declaration: its paths and rows need not be the result's (a YAML result or an array wrapped
 * as `{ result }`, a row without the field a label's `when` reads), and the declared trust would cover everything.
 */
export function labelRelease(released: string, items: readonly LabelledContent[]): readonly LabelledContent[] {
  const trust = items.some(({ label }) => label.trust === Trust.Untrusted) ? Trust.Untrusted : Trust.Trusted;
  const sources = new Map(
    items.filter(({ label }) => label.trust === trust).map(({ label }) => [label.source.toString(), label.source]),
  );
  return [...items, ...[...sources.values()].map((source) => labelContent(released, source, trust))];
}

function applies(label: ResultPathLabel, row: Row): boolean {
  return label.when === undefined || label.when(row) === true;
}

/** What `literal` holds at `key`, where it is an object or array that has it. */
function literalAt(literal: unknown, key: string | number): unknown {
  return typeof literal === 'object' && literal !== null && Object.hasOwn(literal, key)
    ? (literal as Record<string | number, unknown>)[key]
    : undefined;
}

/**
 * The result as an object or array, with the literals of its numbers that lose digits (`jsonNumberLiterals`), or
 * `undefined` when it does not parse as one.
 */
function parseResult(text: string, format: ResultFormat): { value: object; literals: unknown } | undefined {
  try {
    if (format === ResultFormat.Yaml) {
      // logLevel 'error': warnings are not printed; an error fails the parse, as `parse` of the yaml package throws.
      const doc = parseDocument(text, { logLevel: 'error' });
      if (doc.errors.length > 0) return undefined;
      yamlKeysAsWritten(doc);
      const value: unknown = doc.toJS();
      return isObject(value) ? { value, literals: yamlNumberLiterals(doc) } : undefined;
    }
    const value: unknown = JSON.parse(text);
    return isObject(value) ? { value, literals: jsonNumberLiterals(text) } : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
