import { StateModelError, compileStateModel } from '@verdict/nestjs';
import { parse, YAMLParseError } from 'yaml';
import { AsrhCategory, AsrhSeverity, AsrhAssertionType, type AsrhScenario } from './asrh-scenario.js';
import { AsrhScenarioError } from './asrh-scenario.error.js';
import { readAsrhSource, type AsrhSource } from './asrh-source.js';
import { isRecord } from './is-record.js';
import { childPath } from './json-path.js';

const REQUIRED_FIELDS = ['id', 'title', 'category', 'severity', 'target', 'input', 'expected', 'assertions'] as const;
const ID_PATTERN = /^[A-Za-z0-9._-]+$/;
const CATEGORIES: readonly string[] = Object.values(AsrhCategory);
const SEVERITIES: readonly string[] = Object.values(AsrhSeverity);
const STRING_LISTS = ['allowed_tools', 'denied_tools', 'allowed_recipients', 'allowed_domains'] as const;

/**
 * Parses and validates a harness scenario: the scenario schema (required fields, no unknown top-level keys, id pattern,
 * category and severity enums, a non-empty `assertions` list of objects with a `type`) plus what each known assertion
 * type needs (`goal_integrity` → `expected_goal`, `approval_required` → `action`, `memory_isolation` → forbidden
 * markers, `forbidden_state_not_reached` → `expected.state_model`). Unknown assertion types load and evaluate to `error`.
 * @throws AsrhScenarioError naming the file and the path of the first problem
 * @example loadScenario({ file: 'scenarios/goal_hijack/basic.yaml' }).id // 'goal_hijack.basic_001'
 */
export function loadScenario(source: AsrhSource): AsrhScenario {
  const { name, text } = readAsrhSource(
    source,
    (file, problem, cause) => new AsrhScenarioError(file, '$', problem, { cause }),
  );
  let data: unknown;
  try {
    data = parse(text);
  } catch (cause) {
    const at =
      cause instanceof YAMLParseError && cause.linePos
        ? ` at line ${cause.linePos[0].line}, column ${cause.linePos[0].col}`
        : '';
    throw new AsrhScenarioError(name, '$', `is not valid YAML${at}`, { cause });
  }
  validateScenario(data, (path, problem) => new AsrhScenarioError(name, path, problem));
  return data;
}

type Fail = (path: string, problem: string) => AsrhScenarioError;

function validateScenario(data: unknown, fail: Fail): asserts data is AsrhScenario {
  if (!isRecord(data)) throw fail('$', 'must be a YAML mapping');
  for (const field of REQUIRED_FIELDS) if (!(field in data)) throw fail(`$.${field}`, 'is required');
  for (const key of Object.keys(data)) {
    if (!(REQUIRED_FIELDS as readonly string[]).includes(key))
      throw fail(childPath('$', key), `is not a scenario field (allowed: ${REQUIRED_FIELDS.join(', ')})`);
  }
  if (!isNonBlank(data.id) || !ID_PATTERN.test(data.id))
    throw fail('$.id', 'must be a non-empty string of letters, digits, ".", "_" or "-"');
  if (!isNonBlank(data.title)) throw fail('$.title', 'must be a non-empty string');
  if (typeof data.category !== 'string' || !CATEGORIES.includes(data.category))
    throw fail('$.category', `must be one of: ${CATEGORIES.join(', ')}`);
  if (typeof data.severity !== 'string' || !SEVERITIES.includes(data.severity))
    throw fail('$.severity', `must be one of: ${SEVERITIES.join(', ')}`);
  validateTarget(data.target, fail);
  validateInput(data.input, fail);
  validateExpected(data.expected, fail);
  const { assertions, expected } = data as { assertions: unknown; expected: Record<string, unknown> };
  if (!Array.isArray(assertions) || assertions.length === 0) throw fail('$.assertions', 'must be a non-empty list');
  assertions.forEach((assertion, index) => validateAssertion(assertion, `$.assertions[${index}]`, expected, fail));
}

function validateTarget(target: unknown, fail: Fail): void {
  if (!isRecord(target)) throw fail('$.target', 'must be a mapping');
  if (typeof target.adapter !== 'string' || target.adapter.length === 0)
    throw fail('$.target.adapter', 'must be a non-empty string');
  if ('endpoint' in target && typeof target.endpoint !== 'string') throw fail('$.target.endpoint', 'must be a string');
}

function validateInput(input: unknown, fail: Fail): void {
  if (!isRecord(input)) throw fail('$.input', 'must be a mapping');
  if (!('context' in input)) return;
  if (!Array.isArray(input.context)) throw fail('$.input.context', 'must be a list');
  input.context.forEach((item, index) => {
    if (!isRecord(item)) throw fail(`$.input.context[${index}]`, 'must be a mapping');
  });
}

function validateExpected(expected: unknown, fail: Fail): void {
  if (!isRecord(expected)) throw fail('$.expected', 'must be a mapping');
  for (const list of STRING_LISTS) {
    if (!(list in expected) || expected[list] === null) continue;
    const value = expected[list];
    if (!Array.isArray(value)) throw fail(`$.expected.${list}`, 'must be a list');
    value.forEach((item, index) => {
      if (!isNonBlank(item)) throw fail(`$.expected.${list}[${index}]`, 'must be a non-empty string');
    });
  }
  if (!('memory_isolation' in expected)) return;
  const isolation = expected.memory_isolation;
  if (!isRecord(isolation)) throw fail('$.expected.memory_isolation', 'must be a mapping');
  if (!('forbidden_markers' in isolation)) return;
  if (!Array.isArray(isolation.forbidden_markers))
    throw fail('$.expected.memory_isolation.forbidden_markers', 'must be a list');
  isolation.forbidden_markers.forEach((marker, index) => {
    // Markers are secrets by design: the problem never quotes them.
    if (typeof marker !== 'string' || marker.length === 0)
      throw fail(`$.expected.memory_isolation.forbidden_markers[${index}]`, 'must be a non-empty string');
  });
}

function validateAssertion(assertion: unknown, path: string, expected: Record<string, unknown>, fail: Fail): void {
  if (!isRecord(assertion)) throw fail(path, 'must be a mapping');
  if (!isNonBlank(assertion.type)) throw fail(`${path}.type`, 'must be a non-empty string');
  switch (assertion.type) {
    case AsrhAssertionType.GoalIntegrity:
      if (!isNonBlank(assertion.expected_goal))
        throw fail(`${path}.expected_goal`, 'must be a non-empty string for goal_integrity');
      return;
    case AsrhAssertionType.ApprovalRequired:
      if (!isNonBlank(assertion.action))
        throw fail(`${path}.action`, 'must be a non-empty string for approval_required');
      return;
    case AsrhAssertionType.MemoryIsolation: {
      const markers = isRecord(expected.memory_isolation) ? expected.memory_isolation.forbidden_markers : undefined;
      if (!Array.isArray(markers) || markers.length === 0) {
        throw fail(
          '$.expected.memory_isolation.forbidden_markers',
          `must be a non-empty list for the memory_isolation assertion at ${path}`,
        );
      }
      return;
    }
    case AsrhAssertionType.ForbiddenStateNotReached:
      if (!isRecord(expected.state_model))
        throw fail(
          '$.expected.state_model',
          `must be a mapping for the forbidden_state_not_reached assertion at ${path}`,
        );
      // Validated up front: an invalid model is a scenario error, before any trace is read.
      try {
        compileStateModel(expected.state_model);
      } catch (error) {
        if (error instanceof StateModelError) throw fail('$.expected.state_model', error.problems.join('; '));
        throw error;
      }
      return;
  }
}

function isNonBlank(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}
