import { describe, expect, it } from '@jest/globals';
import {
  ActionContextStore,
  CapabilityDenied,
  InMemoryContainmentStore,
  VerdictConfigurationError,
  VerdictService,
  containmentRule,
} from '@verdict/nestjs';
import { TypeOrmRateLimitStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const LONGEST_WINDOW = 3_155_760_000;

for (const engine of databaseEngines()) {
  describe(`a containment rule's window, counted by TypeOrmRateLimitStore [${engine.name}]`, () => {
    it('attack: a window no counter store can count (1e13 s) is refused when the rule is built, never a rule that cannot contain', () => {
      expect(() =>
        containmentRule({ name: 'denials', on: CapabilityDenied, threshold: 2, windowSeconds: 10_000_000_000_000 }),
      ).toThrow(VerdictConfigurationError);
    });

    it('the longest window a rate limit takes (100 years) counts and contains the actor (control)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const fixture = documentsFixture();
        const rule = containmentRule({
          name: 'denials',
          on: CapabilityDenied,
          threshold: 2,
          windowSeconds: LONGEST_WINDOW,
        });
        const { moduleRef } = await fixture.boot({
          containment: {
            store: new InMemoryContainmentStore(),
            cacheTtlMs: 0,
            rules: [rule],
            ruleCounters: new TypeOrmRateLimitStore(dataSource),
          },
        });
        const verdict = moduleRef.get(VerdictService);
        const contexts = moduleRef.get(ActionContextStore);
        const outcome = async (id: number) => {
          const result = await contexts.run(alice, () =>
            verdict.execute({ capability: 'documents.read', arguments: { id } }),
          );
          return result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;
        };
        // Document 2 is bob's (alice may not read it); document 1 is her own.
        const seen = [await outcome(2), await outcome(2), await outcome(1)];
        await moduleRef.close();

        expect(seen).toEqual(['deny@proposal', 'deny@proposal', 'deny@containment']);
      });
    });
  });
}
