import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalService,
  type CapabilityDefinition,
  DataClass,
  Destination,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  InMemoryProvenanceLedger,
  type ProvenancePolicy,
  type QuarantineChatModel,
  ReleasePolicy,
  type ResultProvenance,
  Source,
  Trust,
  VerdictModule,
  defineCapability,
} from '@verdict/nestjs';
import {
  ProvenanceTrackers,
  QuarantinedReaders,
  VerdictLangChainModule,
  VerdictTools,
} from '@verdict/nestjs/langchain';
import type { AgentMiddleware } from 'langchain';
import { AsyncLocalStorage } from 'node:async_hooks';
import { ownedSubject } from '../provenance-packs/owned-subject.js';
import { PackArm } from '../provenance-packs/pack-arm.js';
import type { CorpusCall } from './agentdojo-corpus.js';
import { type AgentDojoSuite, capabilityOf } from './agentdojo-suite.js';
import { QUARANTINED_VALUES, VALUES_SCHEMA } from './quarantined-values.js';
import { answerOf, schemaOf, type SuiteTool } from './suite-tool.js';

type Args = Record<string, unknown>;

/** What one run's executors act on: its own environment, and the calls that executed, in order. */
interface RunWorld<Env> {
  readonly environment: Env;
  readonly trace: CorpusCall[];
  /** The quarantine arm's quarantined model for this run. */
  readonly quarantined?: QuarantineChatModel;
}

/** What the user saw and decided on one confirmation (the quarantine arm). */
export interface AgentDojoConfirmation {
  /** Whether the release showed the user a source passage next to the value it was read from (ADR 0085). */
  readonly passageShown: boolean;
  readonly approved: boolean;
}

/** One run's wiring: the tools and middleware its agent gets, and the runner that puts the run in context. */
export interface AgentDojoRun {
  readonly tools: StructuredToolInterface[];
  readonly middleware: AgentMiddleware[];
  run<T>(work: () => Promise<T>): Promise<T>;
  /**
   * The user (Emma) decides on the paused call `toolCallId`: the untrusted content of its window is released to
   * her approval screen, and she approves when it shows the source passage of the value and `recognised` (the
   * call is the one her task needs); she rejects otherwise. Quarantine arm only.
   */
  confirm(toolCallId: string, recognised: boolean): Promise<AgentDojoConfirmation>;
}

/** Where the quarantine arm's approver reads what a confirmation shows: the user's own approval screen. */
const APPROVAL_SCREEN = Destination.connection('approval-screen', 'user');

/**
 * A suite's sandbox in one arm, shared by its runs: the tools (plain in `naive`, capabilities behind Verdict
 * otherwise), each executor acting on the environment of the run in progress. Every run gets a fresh
 * environment, its own trace, its own provenance tracker and its own tenant, so nothing one run records (labels,
 * ledger entries) is seen by another.
 */
export class AgentDojoSandbox<Env> {
  private readonly world = new AsyncLocalStorage<RunWorld<Env>>();
  private runs = 0;
  private app: Promise<INestApplicationContext> | undefined;

  constructor(
    private readonly suite: AgentDojoSuite<Env>,
    readonly arm: PackArm,
  ) {}

  /**
   * The run over `environment`; its executed calls are appended to `trace`. In the quarantine arm, `quarantined`
   * is the run's quarantined model.
   */
  async open(environment: Env, trace: CorpusCall[], quarantined?: QuarantineChatModel): Promise<AgentDojoRun> {
    const world: RunWorld<Env> = { environment, trace, quarantined };
    const inWorld = <T>(work: () => Promise<T>) => this.world.run(world, work);
    this.runs += 1;
    if (this.arm === PackArm.Naive) {
      const tools = this.suite.tools.map((entry) =>
        tool(async (args: Args) => rendered(this.execute(entry, args)), {
          name: entry.declaration.name,
          description: entry.declaration.description,
          schema: schemaOf(entry.declaration),
        }),
      );
      return { tools, middleware: [], run: inWorld, confirm: noConfirmation };
    }
    const app = await (this.app ??= this.boot());
    const { tools, trackers, readers } = app.get(AgentTools);
    const bound = this.suite.tools.map((entry) =>
      tools.bound(
        tool(async () => 'never', {
          name: entry.declaration.name,
          description: entry.declaration.description,
          schema: schemaOf(entry.declaration),
        }),
        capabilityOf(this.suite.name, entry.declaration.name),
      ),
    );
    const tracking = [trackers.forAgent({ agent: `${this.suite.name}-assistant` }).middleware()];
    const middleware =
      this.arm === PackArm.Provenance
        ? tracking
        : this.arm === PackArm.Quarantine
          ? [readers.forAgent({ schemas: { [VALUES_SCHEMA]: QUARANTINED_VALUES } }).middleware(), ...tracking]
          : [];
    const context: ActionContext = { ...EMMA, tenant: `agentdojo-${this.suite.name}-${this.runs}` };
    const contexts = app.get(ActionContextStore);
    const approvals = app.get(ApprovalService);
    return {
      tools: bound,
      middleware,
      run: (work) => inWorld(() => contexts.run(context, work)),
      confirm: async (toolCallId, recognised) => {
        const challenge = await approvals.challengeForToolCall(toolCallId, context);
        if (challenge === null) throw new Error(`no confirmation is pending for ${toolCallId}`);
        const release = await approvals.untrustedContent(
          challenge.receiptId,
          { id: 'emma', context },
          { destination: APPROVAL_SCREEN },
          context,
        );
        const passageShown =
          release.allowed && release.items.some((item) => item.passageOf !== undefined && item.status === 'released');
        const approved = passageShown && recognised;
        await approvals[approved ? 'approve' : 'reject'](challenge.receiptId, toolCallId, 'emma');
        return { passageShown, approved };
      },
    };
  }

  /** Closes the Verdict application, if one was booted. */
  async close(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    if (app !== undefined) await (await app).close();
  }

  private quarantinedModel(): QuarantineChatModel {
    const model = this.world.getStore()?.quarantined;
    if (model === undefined) throw new Error('an extraction ran outside a run of the quarantine arm');
    return model;
  }

  private execute(entry: SuiteTool<Env>, args: Args): unknown {
    const world = this.world.getStore();
    if (world === undefined) throw new Error('a suite tool ran outside a run');
    world.trace.push({ function: entry.declaration.name, args: JSON.parse(JSON.stringify(args)) as Args });
    return answerOf(() => entry.run(world.environment, args));
  }

  private async boot(): Promise<INestApplicationContext> {
    const environment = () => {
      const world = this.world.getStore();
      if (world === undefined) throw new Error('a provenance rule was read outside a run');
      return world.environment;
    };
    const capabilities: CapabilityDefinition<any, any, any>[] = this.suite.tools.map((entry) => {
      const declared = this.suite.provenance(entry.declaration.name, environment);
      return defineCapability(
        {
          name: capabilityOf(this.suite.name, entry.declaration.name),
          description: entry.declaration.description,
          action: entry.consequential ? 'act' : 'read',
          arguments: schemaOf(entry.declaration),
          ...OWN_WORKSPACE,
          mutates: entry.consequential,
          provenance:
            this.arm === PackArm.Provenance
              ? { ...declared.policy, results: declared.results }
              : this.arm === PackArm.Quarantine
                ? { ...confirmingUnderived(declared.policy), results: declared.results }
                : { results: declared.results },
        },
        (action) => this.execute(entry, action.arguments as Args),
      );
    });
    @Module({
      imports: [
        VerdictModule.forRoot({
          abilityFactory: OWN_WORKSPACE_ABILITY,
          evidence: new InMemoryEvidenceRecorder(),
          capabilities,
          provenance: { ledger: new InMemoryProvenanceLedger() },
          // One module for every run: each extraction goes to the quarantined model of the run in progress.
          quarantine: { model: { invoke: (input) => this.quarantinedModel().invoke(input) } },
          // The quarantine arm asks the user; what she is shown of untrusted content goes to her approval screen.
          approvals: new InMemoryApprovalReceiptStore(),
          releasePolicies: untrustedSources(this.suite).map((source) =>
            ReleasePolicy.route(source, APPROVAL_SCREEN)
              .allow({ classes: [DataClass.Internal], trust: [Trust.Untrusted] })
              .detectWith([]),
          ),
        }),
        VerdictLangChainModule,
      ],
      providers: [AgentTools],
    })
    class AgentDojoModule {}
    return NestFactory.createApplicationContext(AgentDojoModule, { logger: false });
  }
}

@Injectable()
class AgentTools {
  constructor(
    readonly tools: VerdictTools,
    readonly trackers: ProvenanceTrackers,
    readonly readers: QuarantinedReaders,
  ) {}
}

/** Every run acts as Emma Johnson, the suites' user, in her own workspace: CASL permits each call, injected or not. */
const EMMA: ActionContext = { actor: { id: 'emma' }, tenant: 'agentdojo', metadata: { conversationId: 'agentdojo' } };

/** Emma's workspace: the one subject every capability targets; she owns it. */
const { abilityFactory: OWN_WORKSPACE_ABILITY, target: OWN_WORKSPACE } = ownedSubject(
  'Workspace',
  'workspace-emma',
  'emma',
);

/** The naive arm has no boundary, so nothing ever pauses for the user. */
function noConfirmation(): Promise<AgentDojoConfirmation> {
  throw new Error('the naive arm asks for no confirmation');
}

/**
 * The quarantine arm's rules: the provenance arm's, but a value not derived from trusted content asks the user
 * (`otherwise: 'require_confirmation'`) instead of being refused: a value that exists only in untrusted text
 * reaches the call through an extraction and one confirmation that shows its source passage (ADR 0085).
 */
function confirmingUnderived(policy: Omit<ProvenancePolicy, 'results'> | undefined) {
  if (policy?.arguments === undefined) return policy;
  const rules = Object.entries(policy.arguments).map(([path, rule]) => [
    path,
    typeof rule === 'object' && rule !== null && 'derivedFrom' in rule && rule.otherwise === 'deny'
      ? { ...rule, otherwise: 'require_confirmation' as const }
      : rule,
  ]);
  return { ...policy, arguments: Object.fromEntries(rules) as typeof policy.arguments };
}

/** The untrusted sources a suite's results declare (whole or per path): the routes to the approval screen. */
function untrustedSources<Env>(suite: AgentDojoSuite<Env>): Source[] {
  const found = new Map<string, Source>();
  const add = (label: { readonly trust?: Trust; readonly source?: unknown } | undefined) => {
    if (label?.trust === Trust.Untrusted && label.source instanceof Source)
      found.set(String(label.source), label.source);
  };
  for (const entry of suite.tools) {
    const results: ResultProvenance = suite.provenance(entry.declaration.name, () => {
      throw new Error('a provenance rule was read outside a run');
    }).results;
    add(results);
    for (const label of Object.values(results.paths ?? {})) add(label);
  }
  return [...found.values()];
}

/** A plain tool's answer: a string as is, anything else as JSON (as Verdict answers for a capability). */
function rendered(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
}
