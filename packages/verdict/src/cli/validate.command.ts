import { Inject, Injectable, Optional } from '@nestjs/common';
import { InvalidArgumentError } from 'commander';
import { Severity, isAtLeast, isSeverity } from '../audit/severity.js';
import { WiringAudit } from '../audit/wiring-audit.js';
import { DEFAULT_LOCAL_TRUST_ZONES } from '../audit/wiring-audit-options.js';
import type { WiringAuditReport } from '../audit/wiring-audit-report.js';
import { type CliStreams, fail, processStreams, table } from './cli-output.js';
import { line } from './output-line.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';

interface ValidateOptions {
  readonly json?: boolean;
  readonly failOn?: string;
  readonly localZone?: readonly string[];
}

/** The default `--fail-on`: every finding fails the check. */
export const DEFAULT_FAIL_ON = Severity.Low;

/** Why a `--fail-on` is refused: the severities it may be. */
const FAIL_ON_SEVERITIES = `--fail-on must be one of ${Object.values(Severity).join(', ')}`;

/**
 * The `--fail-on` flag's value as commander parses it, before the application boots: a severity, else a usage error
 * (exit code 2) naming the valid ones, whatever the wiring would have done (a database that refuses connections, a
 * provider that throws, a wiring Verdict refuses at boot).
 *
 * @throws InvalidArgumentError for a value that is no {@link Severity}.
 */
export function failOnSeverity(value: string): Severity {
  if (!isSeverity(value)) throw new InvalidArgumentError(`${FAIL_ON_SEVERITIES}.`);
  return value;
}

/**
 * The exit code of `validate` when the audit itself failed (it threw: a store's database could not be read, a
 * hook threw): no report, so no verdict on the wiring. Apart from 1 (a finding at or above `--fail-on`), so CI can
 * tell unsafe wiring from a broken audit, and from 2 (a usage error).
 */
export const AUDIT_ERROR_EXIT_CODE = 3;

/**
 * `validate [--json] [--fail-on <severity>] [--local-zone <zone>...]`: the read-only wiring audit for CI
 * ({@link WiringAudit}). Prints the capabilities with their gates and policies, the release routes and the
 * findings; exits 1 when a finding is at or above `--fail-on` (default `low`), 0 otherwise, 2 on a usage error and
 * 3 ({@link AUDIT_ERROR_EXIT_CODE}) when the audit itself failed.
 */
@Injectable()
export class ValidateCommand implements CliCommandRunner {
  constructor(
    private readonly audit: WiringAudit,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
  ) {}

  async run(_params: string[], options: ValidateOptions = {}): Promise<void> {
    const json = options.json === true;
    const failOn = options.failOn ?? DEFAULT_FAIL_ON;
    // The CLI refuses it while parsing (`failOnSeverity`), before anything boots; this is for a caller of `run` itself.
    if (!isSeverity(failOn)) return fail(this.streams, json, `${FAIL_ON_SEVERITIES}, not "${failOn}"`, 2);
    try {
      const report = await this.audit.run({ localTrustZones: options.localZone ?? DEFAULT_LOCAL_TRUST_ZONES });
      const failed = report.findings.some((finding) => isAtLeast(finding.severity, failOn));
      this.streams.out(json ? JSON.stringify({ ...report, failOn, failed }) : text(report, failOn, failed));
      process.exitCode = failed ? 1 : 0;
    } catch (error) {
      // The audit could not finish: not a finding (1), so CI does not read a broken audit as unsafe wiring.
      auditFailed(this.streams, json, error);
    }
  }
}

/**
 * `validate`'s report of an application that could not start (a provider or a lifecycle hook threw). When Verdict's
 * own boot checks refused the wiring (a `VerdictConfigurationError`, known by its `code`, whichever copy of the package
 * threw it), that is unsafe wiring: `error: Verdict refused the wiring at boot: <message>`, exit code 1, as for a
 * finding at any `--fail-on`. Anything else failed the audit before it began: exit code 3
 * ({@link AUDIT_ERROR_EXIT_CODE}), as for an audit that threw.
 */
export function validateBootFailed(error: unknown, options: ValidateOptions): void {
  const json = options.json === true;
  if ((error as { code?: unknown } | null)?.code === 'VERDICT_CONFIGURATION')
    return fail(processStreams, json, `Verdict refused the wiring at boot: ${(error as Error).message}`, 1);
  auditFailed(processStreams, json, error);
}

function auditFailed(streams: CliStreams, json: boolean, error: unknown): void {
  fail(
    streams,
    json,
    `the audit failed: ${error instanceof Error ? error.message : String(error)}`,
    AUDIT_ERROR_EXIT_CODE,
  );
}

function text(report: WiringAuditReport, failOn: Severity, failed: boolean): string {
  const capabilities = report.capabilities.map((capability) => ({
    capability: capability.name,
    'action/subject': `${capability.action} ${capability.subject}`,
    gates: capability.gates.join(','),
    policies: Object.entries(capability.policies)
      .map(([gate, policy]) => `${gate}=${policy}`)
      .join('; '),
    tools: capability.tools.join(', ') || '-',
  }));
  const findings = report.findings.map(({ severity, code, subject, message }) => ({
    severity,
    code,
    subject,
    message,
  }));
  return [
    'Capabilities',
    table(capabilities, ['capability', 'action/subject', 'gates', 'policies', 'tools']),
    '',
    'Release routes',
    report.releaseRoutes.length === 0 ? '(none)' : report.releaseRoutes.map((route) => line`${route}`).join('\n'),
    '',
    'Agents',
    report.agents.length === 0
      ? '(none registered)'
      : report.agents.map((agent) => line`${agent.name}: ${agent.tools.join(', ')}`).join('\n'),
    '',
    'Findings',
    table(findings, ['severity', 'code', 'subject', 'message']),
    '',
    ...report.notes.map((note) => line`note: ${note}`),
    line`${report.findings.length} finding(s); ${failed ? 'FAIL' : 'ok'} (--fail-on ${failOn})`,
  ].join('\n');
}
