import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  type ActionContext,
  ActionContextStore,
  type CapabilityDefinition,
  InMemoryEvidenceRecorder,
  InMemoryProvenanceLedger,
  VerdictModule,
  defineCapability,
} from '@verdict/nestjs';
import { ProvenanceTrackers, VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import type { AgentMiddleware } from 'langchain';
import { AsyncLocalStorage } from 'node:async_hooks';
import { ownedSubject } from '../provenance-packs/owned-subject.js';
import { PackArm } from '../provenance-packs/pack-arm.js';
import type { CorpusCall } from './agentdojo-corpus.js';
import { type AgentDojoSuite, capabilityOf } from './agentdojo-suite.js';
import { answerOf, schemaOf, type SuiteTool } from './suite-tool.js';

type Args = Record<string, unknown>;

/** What one run's executors act on: its own environment, and the calls that executed, in order. */
interface RunWorld<Env> {
  readonly environment: Env;
  readonly trace: CorpusCall[];
}

/** One run's wiring: the tools and middleware its agent gets, and the runner that puts the run in context. */
export interface AgentDojoRun {
  readonly tools: StructuredToolInterface[];
  readonly middleware: AgentMiddleware[];
  run<T>(work: () => Promise<T>): Promise<T>;
}

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
    private readonly arm: PackArm,
  ) {}

  /** The run over `environment`; its executed calls are appended to `trace`. */
  async open(environment: Env, trace: CorpusCall[]): Promise<AgentDojoRun> {
    const world: RunWorld<Env> = { environment, trace };
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
      return { tools, middleware: [], run: inWorld };
    }
    const app = await (this.app ??= this.boot());
    const { tools, trackers } = app.get(AgentTools);
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
    const middleware =
      this.arm === PackArm.Provenance
        ? [trackers.forAgent({ agent: `${this.suite.name}-assistant` }).middleware()]
        : [];
    const context: ActionContext = { ...EMMA, tenant: `agentdojo-${this.suite.name}-${this.runs}` };
    const contexts = app.get(ActionContextStore);
    return { tools: bound, middleware, run: (work) => inWorld(() => contexts.run(context, work)) };
  }

  /** Closes the Verdict application, if one was booted. */
  async close(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    if (app !== undefined) await (await app).close();
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

/** A plain tool's answer: a string as is, anything else as JSON (as Verdict answers for a capability). */
function rendered(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
}
