import { readFileSync } from 'node:fs';
import ajvModule from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';

/**
 * The JSON Schema (draft 2020-12) of `verdict.evaluation-report.v1`, shipped in the package as
 * `@verdict/evaluation/report.schema.json`. The source (`src/reports/`) and the build (`dist/reports/`)
 * both sit two levels below the package root, so one relative URL serves both.
 */
export const REPORT_SCHEMA_FILE = new URL('../../schemas/evaluation-report.v1.schema.json', import.meta.url);

let compiled: ValidateFunction | undefined;

/** The schema as a parsed JSON object. */
export function reportJsonSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(REPORT_SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
}

/** Validates `value` against the schema (compiled once per process) and lists what is wrong. */
export function schemaProblems(value: unknown): string[] {
  compiled ??= new ajvModule.default({ allErrors: true, strict: true, allowUnionTypes: true }).compile(
    reportJsonSchema(),
  );
  if (compiled(value)) return [];
  return (compiled.errors ?? []).map(describe);
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})`
      : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}
