import { globProblem } from './glob.js';
import { CONDITION_OPERATORS, type ConditionOperator } from './state-model.js';
import { stateValueType, type StateValue, type StateValueType } from './trajectory-state.js';

const MODEL_KEYS = ['initial', 'transitions', 'forbidden'];
const RULE_KEYS = ['when', 'requires', 'set', 'add'];
const WHEN_KEYS = ['effect', 'resource', 'destination'];
const GROUP_KEYS = ['all', 'any', 'not'];
const CONDITION_KEYS = ['field', ...CONDITION_OPERATORS];
const RESERVED_FIELDS = new Set(['__proto__', 'constructor', 'prototype']);

/** Where a field gets a value (initial, set or add) and of which type. */
interface FieldSource {
  readonly path: string;
  readonly type: StateValueType;
}

/** A condition's reference to a field, checked once every declaration and write is known. */
interface FieldReference {
  readonly path: string;
  readonly field: string;
  readonly operator: ConditionOperator;
  readonly operand: StateValue;
}

/**
 * Structural validation of a declared state model: every problem, each prefixed with its path inside the model.
 * An empty result means the value has the {@link StateModel} shape and its field references are consistent; the
 * initial-state check needs compiled predicates and runs in `compileStateModel`.
 */
export function stateModelProblems(model: unknown): string[] {
  return new StateModelValidation().run(model);
}

class StateModelValidation {
  private readonly problems: string[] = [];
  private readonly sources = new Map<string, FieldSource[]>();
  private readonly references: FieldReference[] = [];
  private readonly additions: { path: string; field: string }[] = [];

  run(model: unknown): string[] {
    if (!isPlainObject(model)) return ['state model: must be an object with initial, transitions and forbidden'];
    this.knownKeys(model, 'state model', MODEL_KEYS);
    for (const key of MODEL_KEYS) if (!Object.hasOwn(model, key)) this.problem(key, 'required');
    if (Object.hasOwn(model, 'initial')) this.initial(model.initial);
    if (Object.hasOwn(model, 'transitions'))
      this.list(model.transitions, 'transitions', (rule, path) => this.rule(rule, path));
    if (Object.hasOwn(model, 'forbidden')) this.forbidden(model.forbidden);
    this.checkReferences();
    this.checkAdditions();
    return this.problems;
  }

  private initial(initial: unknown): void {
    if (!isPlainObject(initial)) return this.problem('initial', 'must be an object of field values');
    for (const [field, value] of Object.entries(initial)) {
      const path = `initial${segment(field)}`;
      if (this.fieldName(field, path) && this.stateValue(value, path)) this.source(field, path, stateValueType(value));
    }
  }

  private rule(rule: unknown, path: string): void {
    if (!isPlainObject(rule)) return this.problem(path, 'must be an object with when and set and/or add');
    this.knownKeys(rule, path, RULE_KEYS);
    if (!Object.hasOwn(rule, 'when')) this.problem(`${path}.when`, 'required');
    else this.when(rule.when, `${path}.when`);
    if (Object.hasOwn(rule, 'requires'))
      this.list(rule.requires, `${path}.requires`, (node, at) => this.node(node, at));
    if (!Object.hasOwn(rule, 'set') && !Object.hasOwn(rule, 'add'))
      this.problem(path, 'needs set or add (a rule that writes nothing has no effect)');
    if (Object.hasOwn(rule, 'set'))
      this.writes(
        rule.set,
        `${path}.set`,
        (field, value, at) => this.stateValue(value, at) && this.source(field, at, stateValueType(value)),
      );
    if (Object.hasOwn(rule, 'add')) {
      this.writes(rule.add, `${path}.add`, (field, amount, at) => {
        if (typeof amount !== 'number') return this.problem(at, 'add amount is not numeric');
        if (!Number.isFinite(amount)) return this.problem(at, 'number is not finite');
        this.source(field, at, 'number');
        this.additions.push({ path: at, field });
      });
    }
  }

  private when(when: unknown, path: string): void {
    if (!isPlainObject(when))
      return this.problem(path, 'must be an object with effect and optional resource, destination globs');
    this.knownKeys(when, path, WHEN_KEYS);
    if (!Object.hasOwn(when, 'effect')) this.problem(`${path}.effect`, 'required');
    for (const key of WHEN_KEYS) {
      if (!Object.hasOwn(when, key)) continue;
      const pattern = when[key];
      if (typeof pattern !== 'string' || pattern.trim() === '')
        this.problem(`${path}.${key}`, 'must be a non-empty glob string');
      // Effect values are trimmed before they are matched: a glob that begins or ends with whitespace matches none.
      else if (pattern !== pattern.trim())
        this.problem(`${path}.${key}`, 'must not begin or end with whitespace (it matches the trimmed value)');
      else this.glob(pattern, `${path}.${key}`);
    }
  }

  private writes(writes: unknown, path: string, each: (field: string, value: unknown, path: string) => unknown): void {
    if (!isPlainObject(writes) || Object.keys(writes).length === 0)
      return this.problem(path, 'must be a non-empty object of field values');
    for (const [field, value] of Object.entries(writes)) {
      const at = `${path}${segment(field)}`;
      if (this.fieldName(field, at)) each(field, value, at);
    }
  }

  private forbidden(forbidden: unknown): void {
    const firstUse = new Map<string, string>();
    this.list(forbidden, 'forbidden', (predicate, path) => {
      if (!isPlainObject(predicate)) return this.problem(path, 'must be an object with id and one of all, any, not');
      const { id } = predicate;
      if (typeof id !== 'string' || id.trim() === '') this.problem(`${path}.id`, 'must be a non-empty string');
      else if (firstUse.has(id))
        this.problem(`${path}.id`, `duplicate predicate id '${id}' (first used at ${firstUse.get(id)})`);
      else firstUse.set(id, path);
      this.group(predicate, path, ['id']);
    });
  }

  private node(node: unknown, path: string): void {
    if (!isPlainObject(node))
      return this.problem(path, 'must be a condition {field, <operator>} or an object with one of all, any, not');
    if (Object.hasOwn(node, 'field')) this.condition(node, path);
    else this.group(node, path, []);
  }

  private group(group: Record<string, unknown>, path: string, extraKeys: readonly string[]): void {
    this.knownKeys(group, path, [...extraKeys, ...GROUP_KEYS]);
    const kinds = GROUP_KEYS.filter((key) => Object.hasOwn(group, key));
    if (kinds.length !== 1)
      this.problem(
        path,
        `needs exactly one of all, any, not (found ${kinds.length === 0 ? 'none' : kinds.join(', ')})`,
      );
    for (const kind of kinds) {
      if (kind === 'not') this.node(group.not, `${path}.not`);
      else this.list(group[kind], `${path}.${kind}`, (node, at) => this.node(node, at));
    }
  }

  private condition(condition: Record<string, unknown>, path: string): void {
    this.knownKeys(condition, path, CONDITION_KEYS);
    const field = condition.field;
    const validField = this.fieldName(field, `${path}.field`);
    const operators = CONDITION_OPERATORS.filter((operator) => Object.hasOwn(condition, operator));
    if (operators.length !== 1)
      return this.problem(
        path,
        `needs exactly one operator of ${CONDITION_OPERATORS.join(', ')} (found ${operators.length})`,
      );
    const operator = operators[0];
    const operand = condition[operator];
    const at = `${path}.${operator}`;
    let validOperand: boolean;
    if (operator === 'equals' || operator === 'not_equals') validOperand = this.stateValue(operand, at);
    else if (operator === 'matches')
      validOperand = typeof operand === 'string' ? this.glob(operand, at) : this.fail(at, 'must be a glob string');
    else validOperand = this.finiteNumber(operand, at);
    if (validField && validOperand)
      this.references.push({ path, field: field as string, operator, operand: operand as StateValue });
  }

  private checkReferences(): void {
    for (const { path, field, operator, operand } of this.references) {
      const sources = this.sources.get(field);
      if (sources === undefined) {
        this.problem(`${path}.field`, `'${field}' is neither declared in initial nor written by any transition`);
        continue;
      }
      const types = new Set(sources.map((source) => source.type));
      const held = [...types].join(' or ');
      const at = `${path}.${operator}`;
      if (operator === 'equals' || operator === 'not_equals') {
        const type = stateValueType(operand);
        if (types.has(type)) continue;
        const consequence = operator === 'equals' ? 'never holds' : 'holds whenever the field is present';
        this.problem(
          at,
          `field '${field}' only holds ${held}, never ${type}; comparison is strict, so this condition ${consequence}`,
        );
      } else if (operator === 'matches') {
        if (!types.has('string')) this.problem(at, `field '${field}' never holds a string (it holds ${held})`);
      } else if (!types.has('number')) {
        this.problem(at, `field '${field}' is not numeric (it holds ${held})`);
      }
    }
  }

  private checkAdditions(): void {
    for (const { path, field } of this.additions) {
      const other = this.sources.get(field)?.find((source) => source.type !== 'number');
      if (other !== undefined) this.problem(path, `field is not numeric (${other.path} is ${article(other.type)})`);
    }
  }

  private list(value: unknown, path: string, each: (item: unknown, path: string) => void): void {
    if (!Array.isArray(value) || value.length === 0) return this.problem(path, 'must be a non-empty list');
    value.forEach((item, index) => each(item, `${path}[${index}]`));
  }

  private knownKeys(value: Record<string, unknown>, path: string, allowed: readonly string[]): void {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) this.problem(path, `unknown key '${key}' (allowed: ${allowed.join(', ')})`);
    }
  }

  private fieldName(field: unknown, path: string): field is string {
    if (typeof field !== 'string' || field.trim() === '')
      return this.fail(path, 'field name must be a non-empty string');
    if (RESERVED_FIELDS.has(field)) return this.fail(path, `'${field}' is a reserved name`);
    return true;
  }

  private stateValue(value: unknown, path: string): value is StateValue {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
    if (typeof value === 'number') return Number.isFinite(value) || this.fail(path, 'number is not finite');
    return this.fail(path, 'must be a string, finite number, boolean or null');
  }

  private finiteNumber(value: unknown, path: string): boolean {
    if (typeof value !== 'number') return this.fail(path, 'must be a number');
    return Number.isFinite(value) || this.fail(path, 'number is not finite');
  }

  private glob(pattern: string, path: string): boolean {
    const problem = globProblem(pattern);
    return problem === null || this.fail(path, problem);
  }

  private source(field: string, path: string, type: StateValueType): void {
    const sources = this.sources.get(field);
    if (sources === undefined) this.sources.set(field, [{ path, type }]);
    else sources.push({ path, type });
  }

  private problem(path: string, problem: string): void {
    this.problems.push(`${path}: ${problem}`);
  }

  private fail(path: string, problem: string): false {
    this.problem(path, problem);
    return false;
  }
}

/**
 * A plain object of any realm (prototype `null`, or an `Object.prototype` whose own prototype is `null`): a model parsed
 * or cloned in a worker or VM context is accepted, class instances, arrays and dates are not.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** A path segment for a field name: `.name` for identifiers, `["odd name"]` otherwise. */
function segment(field: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(field) ? `.${field}` : `[${JSON.stringify(field)}]`;
}

function article(type: StateValueType): string {
  return type === 'null' ? 'null' : `a ${type}`;
}
