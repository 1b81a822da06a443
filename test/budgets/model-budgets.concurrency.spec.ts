import { afterAll, describe, expect, it } from '@jest/globals';
import { ModelBudgetGate, type ModelBudget } from '@verdict/nestjs';
import { TypeOrmBudgetStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  databaseEngines,
  dropDataSource,
  openDataSource,
  startModelBudgetWorkers,
  WorkerKeeper,
} from '@verdict/testing-kit';

const PROCESSES = 8;
const ROUNDS = 4;
/** Agent runs are heavier than bare store calls, and the databases are shared. */
const TIMEOUT_MS = 240_000;
const RUNS_PER_PROCESS = 3;
const LIMIT = 1_000;
/** Each model call is estimated at 60 input tokens plus the model's 40 output tokens: 100 reserved. */
const INPUT_TOKENS = 60;
const MAX_TOKENS = 40;

/**
 * Token budgets across real OS processes, each with its own connection: every round, all processes run three agents
 * at once under the same fresh budget (24 model calls of 100 reserved against 1,000 tokens).
 */
/** The worker processes, started once and given each engine's database in turn. */
const keeper = new WorkerKeeper();
afterAll(() => keeper.close());

for (const engine of databaseEngines()) {
  describe(`Model budgets across ${PROCESSES} OS processes [${engine.name}]`, () => {
    it(
      `attack: racing agents never spend past the limit — exactly ${LIMIT / (INPUT_TOKENS + MAX_TOKENS)} calls when usage meets the estimate; control: what usage leaves unused is released, never held`,
      async () => {
        const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
        const workers = await startModelBudgetWorkers({ count: PROCESSES, dataSource, keeper }).catch(
          async (error: unknown) => {
            await dropDataSource(dataSource);
            throw error;
          },
        );
        const store = new TypeOrmBudgetStore(dataSource);
        try {
          const findings: string[] = [];
          for (let round = 0; round < ROUNDS; round++) {
            for (const used of [100, 70]) {
              const budgets: ModelBudget[] = [
                {
                  name: `race-${engine.name}-${round}-${used}`,
                  measure: 'tokens',
                  limit: LIMIT,
                  per: 'tenant',
                  window: 3_600,
                },
              ];
              // One instant for the whole round: a round that crossed an hour of the wall clock would split its calls
              // between two windows, and the standing below would read only the later one.
              const now = new Date();
              const replies = await workers.runAll({
                budgets,
                now,
                actor: 'alice',
                runs: RUNS_PER_PROCESS,
                inputTokens: INPUT_TOKENS,
                maxTokens: MAX_TOKENS,
                usage: { input: used - 30, output: 30 },
              });
              const outcomes = replies.flatMap((reply) => reply.outcomes);
              const completed = outcomes.filter((outcome) => outcome === 'completed').length;
              const faults = outcomes.filter((outcome) => outcome !== 'completed' && outcome !== 'stopped');
              const gate = new ModelBudgetGate({ budgets: store, modelBudgets: { budgets }, clock: () => now });
              const [standing] = await gate.standing({ actor: 'alice', tenant: 'acme' });
              const spent = LIMIT - standing!.remaining;
              if (faults.length > 0) findings.push(`round ${round}/${used}: faults ${faults.join(', ')}`);
              if (spent > LIMIT || completed * used > LIMIT)
                findings.push(`round ${round}/${used}: over-spent ${spent}`);
              // Nothing stays reserved once every call settled: the store holds exactly what the usage said.
              if (spent !== completed * used)
                findings.push(`round ${round}/${used}: ${spent} held for ${completed} calls`);
              if (used === 100 && completed !== LIMIT / used) findings.push(`round ${round}: ${completed} calls fit`);
            }
          }
          expect(findings).toEqual([]);
        } finally {
          await workers.close();
          await dropDataSource(dataSource);
        }
      },
      TIMEOUT_MS,
    );
  });
}
