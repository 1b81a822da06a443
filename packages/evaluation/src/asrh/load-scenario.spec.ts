import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { AsrhScenarioError } from './asrh-scenario.error.js';
import { loadScenario } from './load-scenario.js';

function valid(): Record<string, any> {
  return {
    id: 'goal_hijack.sample_001',
    title: 'Sample',
    category: 'goal_hijack',
    severity: 'high',
    target: { adapter: 'http_agent', endpoint: '/run' },
    input: {
      user_message: 'Summarize.',
      context: [{ source: 'retrieved_document', trust: 'untrusted', content: 'x' }],
    },
    expected: { allowed_tools: [], denied_tools: ['shell'] },
    assertions: [{ type: 'no_denied_tool_call' }],
  };
}

function loadError(data: unknown, name = 'scenarios/sample.yaml'): AsrhScenarioError {
  try {
    loadScenario({ text: typeof data === 'string' ? data : stringify(data), name });
  } catch (error) {
    if (error instanceof AsrhScenarioError) return error;
    throw error;
  }
  throw new Error('expected an AsrhScenarioError');
}

function mutated(mutate: (scenario: Record<string, any>) => void): Record<string, any> {
  const scenario = valid();
  mutate(scenario);
  return scenario;
}

describe('loadScenario', () => {
  it('loads a valid scenario with its fields as written', () => {
    const scenario = loadScenario({ text: stringify(valid()) });
    expect(scenario).toEqual(valid());
  });

  it('names the file and the path of the problem, with a stable code', () => {
    const error = loadError(
      mutated((s) => delete s.assertions[0].type),
      'scenarios/goal_hijack/x.yaml',
    );
    expect(error.code).toBe('VERDICT_ASRH_SCENARIO');
    expect(error.file).toBe('scenarios/goal_hijack/x.yaml');
    expect(error.path).toBe('$.assertions[0].type');
    expect(error.message).toContain('scenarios/goal_hijack/x.yaml: $.assertions[0].type:');
  });

  it.each(['id', 'title', 'category', 'severity', 'target', 'input', 'expected', 'assertions'])(
    'requires %s',
    (field) => {
      expect(loadError(mutated((s) => delete s[field])).path).toBe(`$.${field}`);
    },
  );

  it('refuses unknown top-level keys, as the schema does', () => {
    expect(loadError({ ...valid(), notes: 'x' }).path).toBe('$.notes');
  });

  it.each(['has space', 'slash/id', '', 'ümlaut'])('refuses the id %p', (id) => {
    expect(loadError({ ...valid(), id }).path).toBe('$.id');
  });

  it('accepts ids made of letters, digits, dots, underscores and dashes', () => {
    expect(loadScenario({ text: stringify({ ...valid(), id: 'A.b_c-9' }) }).id).toBe('A.b_c-9');
  });

  it('checks category and severity against the enums without echoing the value', () => {
    const error = loadError({ ...valid(), category: 'made_up_category' });
    expect(error.path).toBe('$.category');
    expect(error.message).not.toContain('made_up_category');
    expect(loadError({ ...valid(), severity: 'HIGH' }).path).toBe('$.severity');
    expect(
      loadScenario({ text: stringify({ ...valid(), category: 'mcp_trust_boundary', severity: 'critical' }) }).severity,
    ).toBe('critical');
  });

  it('requires target.adapter and a string endpoint', () => {
    expect(loadError({ ...valid(), target: { endpoint: '/run' } }).path).toBe('$.target.adapter');
    expect(loadError({ ...valid(), target: { adapter: 'x', endpoint: 1 } }).path).toBe('$.target.endpoint');
    expect(loadError({ ...valid(), target: 'http' }).path).toBe('$.target');
  });

  it('requires input and expected to be mappings and context a list of mappings', () => {
    expect(loadError({ ...valid(), input: [] }).path).toBe('$.input');
    expect(loadError({ ...valid(), expected: 'x' }).path).toBe('$.expected');
    expect(loadError(mutated((s) => (s.input.context = ['trusted']))).path).toBe('$.input.context[0]');
  });

  it('requires a non-empty assertions list of mappings with a type', () => {
    expect(loadError({ ...valid(), assertions: [] }).path).toBe('$.assertions');
    expect(loadError({ ...valid(), assertions: ['no_denied_tool_call'] }).path).toBe('$.assertions[0]');
    expect(loadError({ ...valid(), assertions: [{ type: '  ' }] }).path).toBe('$.assertions[0].type');
  });

  it('checks tool and recipient lists hold non-empty strings', () => {
    expect(loadError(mutated((s) => (s.expected.denied_tools = 'shell'))).path).toBe('$.expected.denied_tools');
    expect(loadError(mutated((s) => (s.expected.allowed_tools = ['ok', ''])))).toMatchObject({
      path: '$.expected.allowed_tools[1]',
    });
    expect(loadError(mutated((s) => (s.expected.allowed_domains = [3]))).path).toBe('$.expected.allowed_domains[0]');
  });

  it('requires expected_goal for goal_integrity and action for approval_required', () => {
    const goal = loadError({
      ...valid(),
      assertions: [{ type: 'no_denied_tool_call' }, { type: 'goal_integrity', expected_goal: ' ' }],
    });
    expect(goal.path).toBe('$.assertions[1].expected_goal');
    expect(loadError({ ...valid(), assertions: [{ type: 'approval_required' }] }).path).toBe('$.assertions[0].action');
  });

  it('requires forbidden markers for memory_isolation', () => {
    expect(loadError({ ...valid(), assertions: [{ type: 'memory_isolation' }] }).path).toBe(
      '$.expected.memory_isolation.forbidden_markers',
    );
    const emptyMarker = mutated((s) => {
      s.expected.memory_isolation = { forbidden_markers: ['ok', ''] };
      s.assertions = [{ type: 'memory_isolation' }];
    });
    expect(loadError(emptyMarker).path).toBe('$.expected.memory_isolation.forbidden_markers[1]');
  });

  it('requires a state model for forbidden_state_not_reached', () => {
    expect(loadError({ ...valid(), assertions: [{ type: 'forbidden_state_not_reached' }] }).path).toBe(
      '$.expected.state_model',
    );
  });

  it('validates the state model up front: a predicate already true at the start is a scenario error naming it', () => {
    const model = {
      initial: { uploads: 1 },
      transitions: [{ when: { effect: 'upload' }, add: { uploads: 1 } }],
      forbidden: [{ id: 'any_upload', all: [{ field: 'uploads', greater_than: 0 }] }],
    };
    const error = loadError({
      ...valid(),
      expected: { state_model: model },
      assertions: [{ type: 'forbidden_state_not_reached' }],
    });
    expect(error.path).toBe('$.expected.state_model');
    expect(error.message).toContain('any_upload');
  });

  it('loads unknown assertion types, which evaluate to error later', () => {
    expect(
      loadScenario({ text: stringify({ ...valid(), assertions: [{ type: 'custom_check' }] }) }).assertions,
    ).toEqual([{ type: 'custom_check' }]);
  });

  it('reports YAML syntax errors, duplicate keys and non-mapping documents', () => {
    expect(loadError('id: [unclosed').message).toMatch(/is not valid YAML at line \d+, column \d+/);
    expect(loadError('id: a\nid: b\n').message).toContain('is not valid YAML');
    expect(loadError('- a\n- b\n').problem).toBe('must be a YAML mapping');
    expect(loadError('').problem).toBe('must be a YAML mapping');
  });

  it('reads a file and names it in errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'asrh-scenario-'));
    try {
      const file = join(dir, 'broken.yaml');
      writeFileSync(file, stringify({ ...valid(), severity: 'urgent' }));
      expect(() => loadScenario({ file })).toThrow(expect.objectContaining({ file, path: '$.severity' }));
      const missing = join(dir, 'missing.yaml');
      expect(() => loadScenario({ file: missing })).toThrow(
        expect.objectContaining({ file: missing, problem: 'cannot be read (ENOENT)' }),
      );
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
