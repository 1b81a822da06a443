import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createMongoAbility } from '@casl/ability';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  ActionContextStore,
  type ChainVerification,
  type DecisionRecord,
  type EvidenceChain,
  type EvidenceQuery,
  type EvidenceRecorder,
  ExecutionTargetPolicy,
  InMemoryContainmentStore,
  InMemoryEvidenceQuery,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  TargetNotResolvable,
  VerdictModule,
  VerdictService,
  type WiringAudit,
  type WiringAuditReport,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import {
  type CliCommandSpec,
  printableStreams,
  runVerdictBin,
  runVerdictCli,
  ValidateCommand,
  VERDICT_CLI,
  VerdictCliModule,
} from '@verdict/nestjs/cli';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { startFilesServer } from '../mcp/files-mcp-server.js';
import { inProcessCli } from './in-process-cli.js';

/** What a terminal would act on instead of printing: controls (escape sequences, CR), format characters, separators. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

const orderArguments = z.object({ orderId: z.string() });

/**
 * An order lookup whose resolver says which order it could not find, in the model's own words (a common way to
 * write one), and the evidence of one proposal of `orderId`.
 */
async function lookupEvidence(orderId: string) {
  const orders = new Map([['o-1', { id: 'o-1', customer: 7 }]]);
  const capability = defineCapability(
    {
      name: 'orders.view',
      description: 'Look up an order',
      action: 'view',
      subject: 'Order',
      arguments: orderArguments,
      resolveTarget: fromProposal(
        orderArguments,
        ({ arguments: args }) => orders.get(args.orderId) ?? TargetNotResolvable.throw(`no order ${args.orderId}`),
      ),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
        name: 'order-id',
        identity: (order) => order.id,
      }),
    },
    (action) => action.target.id,
  );
  const recorder = new InMemoryEvidenceRecorder();
  @Module({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'view', subject: 'Order' }]) },
        evidence: recorder,
        capabilities: [capability],
      }),
    ],
  })
  class LookupModule {}
  const app = await NestFactory.createApplicationContext(LookupModule, { logger: false });
  try {
    const result = await app
      .get(ActionContextStore)
      .run({ actor: { id: 7 }, tenant: 'acme' }, () =>
        app.get(VerdictService).execute({ capability: 'orders.view', arguments: { orderId } }),
      );
    const cli = (...argv: string[]) =>
      inProcessCli({ evidence: recorder, evidenceQuery: new InMemoryEvidenceQuery(recorder) }, ...argv);
    return { result, cli };
  } finally {
    await app.close();
  }
}

describe('operator CLI: what it prints is printable (ADR 0154)', () => {
  it('attack: a reason carrying the model’s escape sequences and line breaks cannot forge or hide the lines of evidence show', async () => {
    // Clears the line, returns to its start and writes a forged permit, then hides the rest right to left.
    const forged = 'x\u001b[2K\rproposal permit\nexecution permit\u202eevil';
    const { result, cli } = await lookupEvidence(forged);
    expect(result.decision).toMatchObject({ disposition: 'deny', reason: `no order ${forged}` });

    const shown = await cli('evidence', 'show', result.correlationId);
    expect(shown.code).toBe(0);
    for (const line of shown.stdout.split('\n')) expect(line).not.toMatch(UNPRINTABLE);
    expect(shown.stdout).toContain('no order x\\u001b[2K\\u000dproposal permit\\u000aexecution permit\\u202eevil');
    // The timeline is still its own: one line per record, the last the denial.
    expect(shown.stdout.trim().split('\n').at(-1)).toMatch(/^0\s+\+0ms\s+proposal\s+deny\s+/);

    // JSON output reads back as exactly what was recorded.
    const json = await cli('evidence', 'show', result.correlationId, '--json');
    for (const line of json.stdout.split('\n')) expect(line).not.toMatch(UNPRINTABLE);
    expect(JSON.parse(json.stdout).records[0].reason).toBe(`no order ${forged}`);
  });

  it('control: a plain reason prints as it is, in text and JSON', async () => {
    const { result, cli } = await lookupEvidence('o-404 — ünïcödé');
    const shown = await cli('evidence', 'show', result.correlationId);
    expect(shown.stdout).toContain('no order o-404 — ünïcödé');
    const json = await cli('evidence', 'show', result.correlationId, '--json');
    expect(JSON.parse(json.stdout).records[0].reason).toBe('no order o-404 — ünïcödé');
  });

  it('attack: a reason hiding text behind default-ignorable characters prints each of them as its escape', async () => {
    // Combining grapheme joiner, variation selectors, Hangul fillers, a Mongolian selector: each prints as nothing.
    const hidden = ['\u034f', '\ufe0f', '\ufe00', '\u3164', '\uffa0', '\u115f', '\u1160', '\u180b', '\u{e0100}'];
    const { result, cli } = await lookupEvidence(`o-1${hidden.join('')}7`);
    expect(result.decision).toMatchObject({ disposition: 'deny' });

    const shown = await cli('evidence', 'show', result.correlationId);
    expect(shown.code).toBe(0);
    expect([...shown.stdout].filter((character) => hidden.includes(character))).toEqual([]);
    expect(shown.stdout).toContain(
      'no order o-1\\u034f\\ufe0f\\ufe00\\u3164\\uffa0\\u115f\\u1160\\u180b\\udb40\\udd007',
    );
    // JSON output still reads back as exactly what was recorded.
    const json = await cli('evidence', 'show', result.correlationId, '--json');
    expect(JSON.parse(json.stdout).records[0].reason).toBe(`no order o-1${hidden.join('')}7`);
  });

  it('control: accented letters, CJK and emoji without a variation selector print as themselves', async () => {
    const visible = 'o-2 — café 注文 😀👍🏽';
    const { result, cli } = await lookupEvidence(visible);
    const shown = await cli('evidence', 'show', result.correlationId);
    expect(shown.stdout).toContain(`no order ${visible}`);
  });

  it("attack: an operator's stored --by cannot forge a line of another operator's contain, and argv cannot reach commander's errors raw", async () => {
    const store = new InMemoryContainmentStore();
    const cli = (...argv: string[]) =>
      inProcessCli({ evidence: new InMemoryEvidenceRecorder(), containment: { store } }, ...argv);
    const forgedBy = 'op:1\nreleased the actor kill switch for customer:72';
    expect((await cli('contain', 'actor', 'customer:72', '--by', forgedBy, '--reason', 'INC-1')).code).toBe(0);
    const again = await cli('contain', 'actor', 'customer:72', '--by', 'op:2', '--reason', 'INC-1');
    expect(again.stdout.split('\n')).toHaveLength(1);
    expect(again.stdout).toContain('by op:1\\u000areleased the actor kill switch');

    // Commander writes its usage errors itself, to the process's stderr.
    const written: string[] = [];
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      expect((await cli('nosuch\u001b]0;title\u0007\u202eevil')).code).not.toBe(0);
    } finally {
      stderr.mockRestore();
    }
    expect(written.join('')).toContain('unknown command');
    for (const line of written.join('').split('\n')) expect(line).not.toMatch(UNPRINTABLE);
  });
});

/** Where a stored value starts a line of its own, this starts it: no line the CLI writes may begin with it. */
const FORGED = 'FORGED';

/**
 * A text an attacker stored in `field`: it clears the line, returns to its start and starts a forged line, then a
 * forged cell, and reverses the rest of the line. It starts with its field, so that printed on its line, escaped,
 * nothing of it starts a line with {@link FORGED}; and it has no surrounding spaces (a capability name may not).
 */
const hostile = (field: string) => `${field}\u001b[2K\r\n${FORGED} ${field}\t${FORGED}\u202eevil`;

type Printed = { readonly code: number; readonly stdout: string; readonly stderr: string };

/**
 * What is wrong with what a command printed of the hostile texts: a line holding a character that would not print as
 * itself (a tab included: no command writes one of its own), a line that a stored text started, and — when it prints
 * one (`storedText`) — no hostile text at all, which would make the check vacuous. With `--json`, the JSON must read
 * back the hostile text as it was stored.
 */
function violations(label: string, printed: Printed, json: boolean, storedText: boolean): string[] {
  const found: string[] = [];
  for (const [stream, text] of [
    ['stdout', printed.stdout],
    ['stderr', printed.stderr],
  ] as const)
    for (const [i, line] of text.split('\n').entries()) {
      if (UNPRINTABLE.test(line)) found.push(`${label}: ${stream} line ${i} holds a raw unprintable character`);
      if (line.startsWith(FORGED)) found.push(`${label}: ${stream} line ${i} was started by a stored text: ${line}`);
    }
  if (!storedText) return found;
  if (json) {
    const strings: string[] = [];
    const collect = (value: unknown): void => {
      if (typeof value === 'string') strings.push(value);
      else if (typeof value === 'object' && value !== null) Object.values(value).forEach(collect);
    };
    try {
      collect(JSON.parse(printed.stdout || printed.stderr));
    } catch {
      return [...found, `${label}: not JSON: ${printed.stdout || printed.stderr}`];
    }
    if (!strings.some((text) => text.includes(`\n${FORGED} `)))
      found.push(`${label}: no JSON string reads back a hostile text as stored`);
  } else if (!`${printed.stdout}\n${printed.stderr}`.includes(FORGED))
    found.push(`${label}: printed no hostile text (the check would prove nothing)`);
  return found;
}

/** A decision record as a store could hold it: every text hostile. */
function hostileRecord(sequence: number): DecisionRecord {
  const text = (field: string) => hostile(field) as never;
  return {
    id: text('id'),
    correlationId: text('correlationId'),
    sequence,
    stream: text('stream'),
    capability: text('capability'),
    toolKind: text('toolKind'),
    stage: text('stage'),
    disposition: text('disposition'),
    reason: text('reason'),
    argumentsFingerprint: text('argumentsFingerprint'),
    toolCallFingerprint: text('toolCallFingerprint'),
    actorFingerprint: text('actorFingerprint'),
    targetPolicy: text('targetPolicy'),
    targetStrategy: text('targetStrategy'),
    proposalIdentityFingerprint: text('proposalIdentityFingerprint'),
    executionIdentityFingerprint: text('executionIdentityFingerprint'),
    identityMatch: sequence === 0,
    approvalPhase: text(`approvalPhase ${sequence}`),
    approvalOutcome: text('approvalOutcome'),
    receiptFingerprint: text(`receiptFingerprint ${sequence}`),
    rateLimitKeyFingerprint: text('rateLimitKeyFingerprint'),
    rateLimitLimit: 10,
    rateLimitRemaining: 9 - sequence,
    rateLimitResetAt: new Date(Date.UTC(2026, 0, 1, 1)),
    claimFingerprint: text('claimFingerprint'),
    claimStatus: text(`claimStatus ${sequence}`),
    claimAttempt: 1,
    recordedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)),
  };
}

/** Evidence stores that answer hostile texts: records, a shadow summary, a broken stream. */
function hostileEvidence() {
  const records = [hostileRecord(0), hostileRecord(1)];
  const evidenceQuery: EvidenceQuery = {
    list: async () => records,
    run: async () => records,
    shadowSummary: async () => [
      {
        capability: hostile('capability'),
        stage: hostile('stage') as never,
        disposition: 'would_deny',
        reason: hostile('reason'),
        calls: 2,
        records: 3,
      },
    ],
  };
  const broken: ChainVerification = {
    kind: hostile('kind') as never,
    stream: hostile('stream'),
    intact: false,
    firstBadSequence: 3,
    problem: hostile('problem') as never,
    firstBadCheckpoint: 1,
    records: 2,
    verifiedThrough: 2,
    checkpoints: 1,
    checkpointHead: null,
    signaturesChecked: true,
    unsealed: 0,
  };
  const evidence: EvidenceRecorder & EvidenceChain = {
    recordDecision: async () => undefined,
    recordRelease: async () => undefined,
    seal: async () => ({ sealed: 2, checkpoints: 1 }),
    verify: async () => [broken],
    prune: async () => ({ pruned: 2, anchored: 1 }),
  };
  return { evidence, evidenceQuery };
}

/** A capability whose name is hostile: names are the application's, but `contain` takes one from argv. */
const hostileCapability = defineCapability(
  {
    name: hostile('capability'),
    description: 'Look up an order',
    action: 'view',
    subject: 'Order',
    arguments: orderArguments,
    resolveTarget: fromProposal(orderArguments, ({ arguments: args }) => ({ id: args.orderId })),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'order-id', identity: (order) => order.id }),
  },
  (action) => action.target.id,
);

/** Runs `verdict <argv>` in this process, on stores that hold hostile texts, for an operator the hook names hostilely. */
async function hostileCli(
  options: Omit<Parameters<typeof VerdictModule.forRoot>[0], 'abilityFactory'>,
  argv: string[],
) {
  const out: string[] = [];
  const err: string[] = [];
  @Module({
    imports: [
      VerdictModule.forRoot({ abilityFactory: { createForContext: () => createMongoAbility([]) }, ...options }),
      VerdictCliModule.forRoot({
        streams: { out: (text) => out.push(text), err: (text) => err.push(text) },
        operatorIdentity: () => hostile('operatorIdentity'),
      }),
    ],
  })
  class HostileCliModule {}
  process.exitCode = undefined;
  await runVerdictCli(HostileCliModule, { argv });
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** One invocation of the sweep; `storedText: false` for a command that prints counts only. */
interface SweepCase {
  readonly argv: readonly string[];
  readonly storedText?: false;
  /** What changes in the stores or the MCP server before it runs. */
  readonly before?: () => Promise<void> | void;
}

/** The leaf commands of the operator CLI, as the words that name them (`evidence list`). */
function leafCommands(commands: readonly CliCommandSpec[], prefix: readonly string[] = []): string[][] {
  return commands.flatMap((command) => [
    ...(command.runner === undefined ? [] : [[...prefix, command.name]]),
    ...leafCommands(command.subcommands ?? [], [...prefix, command.name]),
  ]);
}

describe('operator CLI: every command prints every stored text on its line (ADR 0154)', () => {
  let files: Awaited<ReturnType<typeof startFilesServer>>;
  let lockfile: string;
  const claims = new InMemoryExecutionClaimStore();
  const claimIds: string[] = [];
  beforeAll(async () => {
    files = await startFilesServer();
    lockfile = join(await mkdtemp(join(tmpdir(), 'verdict-printable-')), 'verdict-mcp.lock.json');
    for (const binding of ['a', 'b'])
      claimIds.push(
        (
          await claims.admit({
            capability: hostile('capability'),
            policy: hostile('policy'),
            bindingFingerprint: binding.repeat(64),
            candidateId: hostile(`claim ${binding}`),
            now: new Date(),
          })
        ).claimId,
      );
  });
  afterAll(() => files.close());

  /** Every leaf command, in an order that gives each its case (a second `contain` finds the first one's switch). */
  const sweep = (): SweepCase[] => {
    const attribution = ['--by', hostile('by'), '--reason', hostile('reason')];
    const capability = hostile('capability');
    const mcp = (...argv: string[]) => ['mcp', ...argv, '--lockfile', lockfile];
    return [
      { argv: ['claims', 'list'] },
      { argv: ['claims', 'list', '--json'] },
      { argv: ['claims', 'resolve', claimIds[0]!, 'completed', ...attribution, '--force'] },
      { argv: ['claims', 'resolve', claimIds[1]!, 'retryable', ...attribution, '--force', '--json'] },
      { argv: ['claims', 'resolve', hostile('claimId'), 'completed', ...attribution] },
      { argv: ['claims', 'resolve', hostile('claimId'), 'completed', ...attribution, '--json'] },
      { argv: ['evidence', 'list'] },
      { argv: ['evidence', 'list', '--shadow'] },
      { argv: ['evidence', 'list', '--json'] },
      { argv: ['evidence', 'show', hostile('correlationId')] },
      { argv: ['evidence', 'show', hostile('correlationId'), '--json'] },
      { argv: ['evidence', 'shadow-summary'] },
      { argv: ['evidence', 'shadow-summary', '--json'] },
      { argv: ['evidence', 'verify'] },
      { argv: ['evidence', 'verify', '--json'] },
      { argv: ['evidence', 'verify', '--witness', hostile('witness')] },
      { argv: ['evidence', 'seal'], storedText: false },
      { argv: ['evidence', 'prune', '--before', '2026-01-01'], storedText: false },
      { argv: ['rate-limits', 'prune'], storedText: false },
      { argv: ['budgets', 'prune'], storedText: false },
      { argv: ['taint', 'prune'], storedText: false },
      { argv: ['contain', 'capability', capability, ...attribution] },
      { argv: ['contain', 'capability', capability, '--by', 'operator:2', '--reason', 'INC-2'] },
      { argv: ['contain', 'actor', hostile('actor'), ...attribution] },
      { argv: ['contain', 'tenant', hostile('tenant'), ...attribution] },
      { argv: ['contain', 'list'] },
      { argv: ['contain', 'list', '--json'] },
      { argv: ['release', 'capability', capability, ...attribution, '--json'] },
      { argv: ['contain', 'capability', capability, ...attribution, '--json'] },
      { argv: ['release', 'capability', capability, ...attribution] },
      { argv: ['release', 'capability', capability, ...attribution] },
      // An actor key or a tenant id prints as its fingerprint only.
      { argv: ['release', 'actor', hostile('actor'), ...attribution], storedText: false },
      { argv: ['release', 'tenant', hostile('tenant'), ...attribution], storedText: false },
      { argv: ['validate'] },
      { argv: ['validate', '--json'] },
      {
        // A server that names a tool and describes it hostilely.
        before: () => void (files.state.added = [{ name: hostile('tool'), description: hostile('description') }]),
        argv: mcp('pin', 'files', files.url),
      },
      {
        // A lockfile (a pull request's) that records a hostile URL: a URL parser drops its line breaks and tab.
        before: async () => {
          const lock = JSON.parse(await readFile(lockfile, 'utf8'));
          lock.servers.files.url = `${files.url}#${hostile('url')}`;
          await writeFile(lockfile, JSON.stringify(lock));
        },
        argv: mcp('pin', 'files'),
      },
      {
        before: () => void (files.state.description = hostile('description')),
        argv: mcp('diff', 'files', files.url),
      },
      { argv: mcp('diff', 'files', files.url, '--json') },
      { argv: mcp('pin', 'files', files.url, '--json') },
      { argv: mcp('diff', hostile('server')) },
    ];
  };

  it('control: the sweep runs every command of the operator CLI, in text', () => {
    const cases = sweep();
    const uncovered = leafCommands(VERDICT_CLI.commands)
      .filter((words) => !cases.some(({ argv }) => !argv.includes('--json') && words.every((w, i) => argv[i] === w)))
      .map((words) => words.join(' '));
    // A new command joins the sweep with a stored text it prints.
    expect(uncovered).toEqual([]);
  });

  it('attack: no stored text starts a line, a cell or an escape sequence; --json reads back what was stored', async () => {
    const stores = { ...hostileEvidence(), executionClaims: claims, capabilities: [hostileCapability] };
    const containment = { store: new InMemoryContainmentStore() };
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined); // the MCP SDK on hostile names
    const found: string[] = [];
    try {
      for (const { argv, storedText, before } of sweep()) {
        await before?.();
        const printed = await hostileCli({ ...stores, containment }, [...argv]);
        const label = `verdict ${argv.map((word) => (word.includes(FORGED) ? '<hostile>' : word)).join(' ')}`;
        found.push(...violations(label, printed, argv.includes('--json'), storedText !== false));
      }
    } finally {
      warn.mockRestore();
    }
    expect(found).toEqual([]);
  });

  it("attack: validate prints every name of the audit's report on its line", async () => {
    const report = {
      capabilities: [
        {
          name: hostile('capability'),
          action: hostile('action'),
          subject: hostile('subject'),
          gates: [hostile('gate')],
          policies: { [hostile('gate')]: hostile('policy') },
          mutates: true,
          tools: [hostile('tool'), hostile('tool')],
        },
      ],
      releaseRoutes: [hostile('route'), hostile('route')],
      agents: [{ name: hostile('agent'), tools: [hostile('tool'), hostile('tool')] }],
      findings: [{ code: hostile('code'), severity: 'low', subject: hostile('subject'), message: hostile('message') }],
      notes: [hostile('note')],
    } as unknown as WiringAuditReport;
    const out: string[] = [];
    const err: string[] = [];
    const command = new ValidateCommand(
      { run: async () => report } as unknown as WiringAudit,
      printableStreams({ out: (text) => out.push(text), err: (text) => err.push(text) }),
    );
    try {
      await command.run([], {});
    } finally {
      process.exitCode = undefined;
    }
    const printed = { code: 1, stdout: out.join('\n'), stderr: err.join('\n') };
    expect(violations('verdict validate', printed, false, true)).toEqual([]);
    // Each hostile text is on its line: routes, agents, notes.
    for (const field of ['route', 'agent', 'note', 'policy', 'message'])
      expect(printed.stdout).toContain(`${field}\\u001b[2K\\u000d\\u000a${FORGED} ${field}\\u0009${FORGED}\\u202eevil`);
  });

  it("attack: the bin's own usage errors print argv on their line", async () => {
    const out: string[] = [];
    const err: string[] = [];
    process.exitCode = undefined;
    try {
      await runVerdictBin(['--module', hostile('module'), 'evidence', 'list'], {
        cwd: tmpdir(),
        env: {},
        streams: { out: (text) => out.push(text), err: (text) => err.push(text) },
      });
      expect(process.exitCode).toBe(2);
    } finally {
      process.exitCode = undefined;
    }
    const printed = { code: 2, stdout: out.join('\n'), stderr: err.join('\n') };
    expect(violations('verdict --module …', printed, false, true)).toEqual([]);
    expect(printed.stderr).toMatch(/^verdict: cannot import --module module\\u001b/);
  });

  /** `verdict <argv>`, with what commander itself writes to the process's stderr (its usage errors) as its stderr. */
  async function commanderCli(argv: string[]): Promise<Printed> {
    const written: string[] = [];
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const { code, stdout } = await hostileCli({}, argv);
      return { code, stdout, stderr: written.join('') };
    } finally {
      stderr.mockRestore();
    }
  }

  it("attack: commander's usage errors print argv on their line", async () => {
    const found: string[] = [];
    for (const argv of [
      [`evidence\n${FORGED}`],
      [hostile('command')],
      ['evidence', hostile('subcommand')],
      ['evidence', 'list', `--${hostile('option')}`],
    ]) {
      const printed = await commanderCli(argv);
      expect(printed.code).toBe(2);
      const label = `verdict ${argv.map((word) => (word.includes(FORGED) ? '<hostile>' : word)).join(' ')}`;
      found.push(...violations(label, printed, false, true));
    }
    expect(found).toEqual([]);
  });

  it("control: commander's usage errors read as they are, a suggestion after the error", async () => {
    const hint = '(run verdict --help for usage)\n';
    expect(await commanderCli(['evidnce'])).toMatchObject({
      code: 2,
      stderr: `error: unknown command 'evidnce' (Did you mean evidence?)\n${hint}`,
    });
    expect((await commanderCli(['evidence', 'list', '--jsn'])).stderr).toBe(
      `error: unknown option '--jsn' (Did you mean --json?)\n${hint}`,
    );
    expect((await commanderCli(['evidence', 'show'])).stderr).toBe(
      `error: missing required argument 'correlation-id'\n${hint}`,
    );
  });
});
