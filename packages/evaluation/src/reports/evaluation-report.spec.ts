import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { Disposition, Stage } from '@verdict/nestjs';
import { Assertions } from '../assertions/assertions.js';
import { CASE_PURPOSES, CasePurpose } from '../cases/case-purpose.js';
import { CaseStatus } from '../cases/case-status.js';
import { EvaluationCase } from '../cases/evaluation-case.js';
import { CAPABILITY_NAME_PATTERN, IDENTIFIER_PATTERN, VERSION_PATTERN } from '../cases/evaluation-identifier.js';
import { Observation } from '../observations/observation.js';
import { SecuritySuite } from '../suites/security-suite.js';
import { EvaluationReport } from './evaluation-report.js';
import { EvaluationReportError } from './evaluation-report.error.js';
import { REPORT_SCHEMA_FILE, reportJsonSchema } from './report-schema.js';

type Mutable = any; // tampering needs to write where the report type says readonly

const input = { trustedSetup: { actorId: 72 }, untrustedInput: { orderId: 1001 } };

async function setup() {
  const cases = [
    EvaluationCase.attack(
      'contained',
      '1',
      input,
      () =>
        Observation.of({
          output: 'no',
          toolCalls: [
            {
              capability: 'orders.view',
              arguments: { orderId: 1001 },
              disposition: Disposition.Deny,
              stage: Stage.Proposal,
              executed: false,
            },
          ],
        }),
      [Assertions.decisionIs(Disposition.Deny), Assertions.toolAttemptedButBlocked('orders.view')],
    ),
    EvaluationCase.attack(
      'leaked',
      '2',
      input,
      () => Observation.of({ output: { email: 'x' }, executed: true, sideEffects: ['email.sent'] }),
      [Assertions.notExecuted()],
    ),
    EvaluationCase.utility('owned-order', '1', input, async () => Observation.of({ executed: true }), [
      Assertions.executed(),
    ]),
    EvaluationCase.utility(
      'broken',
      '1',
      input,
      () => {
        throw new Error('x');
      },
      [Assertions.executed()],
    ),
    EvaluationCase.attack('fragile', '1', input, () => Observation.of(), [
      Assertions.custom('throws', () => {
        throw new Error();
      }),
    ]),
    EvaluationCase.pending(CasePurpose.Attack, 'later', '1'),
  ];
  const result = await new SecuritySuite('storefront', '1', cases, { model: 'scripted', seed: 7, live: false }).run({
    clock: () => new Date('2025-06-01T12:00:00Z'),
  });
  return { result, json: result.toJson() };
}

function tampered(json: string, edit: (report: Mutable) => void): Mutable {
  const report = JSON.parse(json);
  edit(report);
  return report;
}

describe('EvaluationReport', () => {
  describe('round trip', () => {
    it('parses its own JSON back to the same report', async () => {
      const { result, json } = await setup();
      const parsed = EvaluationReport.parse(json);

      expect(parsed).toEqual(result.toReport());
      expect(parsed.schema).toBe('verdict.evaluation-report.v1');
      expect(parsed.cases.map((entry) => entry.status)).toEqual([
        'passed',
        'failed',
        'passed',
        'error',
        'error',
        'pending',
      ]);
    });

    it('accepts an already parsed value as well as JSON text', async () => {
      const { json } = await setup();
      expect(EvaluationReport.parse(JSON.parse(json))).toEqual(EvaluationReport.parse(json));
    });

    it('writes stable, pretty JSON ending in a newline', async () => {
      const { result, json } = await setup();
      expect(json.endsWith('}\n')).toBe(true);
      expect(EvaluationReport.toJson(EvaluationReport.parse(json))).toBe(result.toJson());
    });
  });

  describe('tampered reports', () => {
    it.each<[string, (report: Mutable) => void, string]>([
      ['an unknown top-level field', (r) => (r.raw = 'x'), '(root) must NOT have additional properties (raw)'],
      ['another schema', (r) => (r.schema = 'verdict.evaluation-report.v2'), '/schema'],
      [
        'a raw output smuggled into an observation',
        (r) => (r.cases[0].observation.output = 'secret'),
        'additional properties (output)',
      ],
      [
        'a harness error message',
        (r) => (r.cases[3].harnessError.message = 'secret'),
        'additional properties (message)',
      ],
      ['a failed case relabelled passed', (r) => (r.cases[1].status = 'passed'), '/cases/1/status passed contradicts'],
      [
        'a passed case with a failing assertion',
        (r) => (r.cases[0].assertions[0].passed = false),
        '/cases/0/status passed contradicts',
      ],
      ['an error relabelled failed', (r) => (r.cases[3].status = 'failed'), '/cases/3 failed needs'],
      ['inflated scores', (r) => (r.scores.attack.passed = 5), '/scores/attack does not match'],
      ['a duplicate case id', (r) => (r.cases[1].id = 'contained'), '/cases/1/id duplicates'],
      ['a truncated fingerprint', (r) => (r.cases[0].input.untrustedInputFingerprint = 'abc'), '/cases/0/input'],
      [
        'a renamed tool capability',
        (r) => (r.cases[0].observation.toolCalls[0].capability = 'orders.cancel'),
        'capabilityFingerprint does not match',
      ],
      ['an impossible date', (r) => (r.generatedAt = '2025-02-30T12:00:00.000Z'), '/generatedAt is not a real instant'],
      [
        'a month that does not exist',
        (r) => (r.generatedAt = '2025-13-01T00:00:00.000Z'),
        '/generatedAt is not a real instant',
      ],
      [
        'executed: false beside a tool call that executed',
        (r) =>
          (r.cases[0].observation.toolCalls[0] = {
            ...r.cases[0].observation.toolCalls[0],
            disposition: 'permit',
            executed: true,
          }),
        '/cases/0/observation/executed is false but a tool call executed',
      ],
      [
        'an unknown disposition',
        (r) => (r.cases[0].observation.disposition = 'allow'),
        '/cases/0/observation/disposition',
      ],
      [
        'a runner error with an observation',
        (r) => (r.cases[3].observation = r.cases[0].observation),
        'must be null when the runner failed',
      ],
      ['a nested reproduction value', (r) => (r.suite.reproduction.model = { name: 'x' }), '/suite/reproduction/model'],
      ['a missing case field', (r) => delete r.cases[2].harnessError, "must have required property 'harnessError'"],
    ])('rejects %s', async (_label, edit, problem) => {
      const { json } = await setup();
      const parse = () => EvaluationReport.parse(tampered(json, edit));

      expect(parse).toThrow(EvaluationReportError);
      try {
        parse();
      } catch (error) {
        expect((error as EvaluationReportError).problems.join('\n')).toContain(problem);
      }
    });

    it('accepts a real instant and an observation whose calls agree with its executed flag', async () => {
      const { json } = await setup();
      const report = EvaluationReport.parse(
        tampered(json, (r) => {
          r.generatedAt = '2025-12-31T23:59:59.999Z';
          r.cases[2].observation.toolCalls = [
            { ...r.cases[0].observation.toolCalls[0], disposition: 'permit', executed: true },
          ];
        }),
      );
      expect(report.generatedAt).toBe('2025-12-31T23:59:59.999Z');
      expect([report.cases[2]?.observation?.executed, report.cases[2]?.observation?.toolCalls[0]?.executed]).toEqual([
        true,
        true,
      ]);
    });

    it('rejects text that is not JSON', () => {
      expect(() => EvaluationReport.parse('{"schema":')).toThrow(EvaluationReportError);
    });
  });

  describe('JSON Schema', () => {
    const schema = reportJsonSchema() as Mutable;

    it('is draft 2020-12 and ships at the path package.json exports', () => {
      const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
      const exported = fileURLToPath(new URL(`../../${pkg.exports['./report.schema.json']}`, import.meta.url));

      expect(exported).toBe(fileURLToPath(REPORT_SCHEMA_FILE));
      expect(pkg.files).toContain('schemas');
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    });

    it('closes every object with additionalProperties: false', () => {
      const open: string[] = [];
      const walk = (node: unknown, path: string): void => {
        if (Array.isArray(node)) return node.forEach((child, index) => walk(child, `${path}/${index}`));
        if (typeof node !== 'object' || node === null) return;
        const record = node as Record<string, unknown>;
        const isObjectSchema = record.type === 'object' || 'properties' in record || 'patternProperties' in record;
        if (isObjectSchema && record.additionalProperties !== false) open.push(path);
        for (const [key, child] of Object.entries(record)) walk(child, `${path}/${key}`);
      };
      walk(schema, '#');
      expect(open).toEqual([]);
    });

    it('uses the same vocabulary and identifier rules as the code', () => {
      expect(schema.$defs.disposition.enum).toEqual([...Object.values(Disposition), null]);
      expect(schema.$defs.stage.enum).toEqual([...Object.values(Stage), null]);
      expect(schema.$defs.case.properties.purpose.enum).toEqual([...CASE_PURPOSES]);
      expect(schema.$defs.case.properties.status.enum).toEqual(Object.values(CaseStatus));
      expect(schema.$defs.identifier.pattern).toBe(IDENTIFIER_PATTERN.source);
      expect(schema.$defs.version.pattern).toBe(VERSION_PATTERN.source);
      expect(schema.$defs.toolCall.properties.capability.anyOf[0].pattern).toBe(CAPABILITY_NAME_PATTERN.source);
    });
  });
});
