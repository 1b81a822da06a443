import { describe, expect, it } from '@jest/globals';
import { InMemoryProvenanceContentStore, fingerprintString } from '@verdict/nestjs';
import { describeProvenanceContentStoreContract } from '@verdict/nestjs/testing';
import {
  ProvenanceContentEntity,
  TypeOrmProvenanceContentStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { CreateProvenanceContents1797000400000 } from '../../packages/verdict/src/typeorm/migrations/1797000400000-create-provenance-contents.js';
import { databaseEngines, dropDataSource, openDataSource, withDataSource } from '@verdict/testing-kit';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

describeProvenanceContentStoreContract('memory', async () => {
  const store = new InMemoryProvenanceContentStore();
  return { store, other: store, close: async () => {} };
});

for (const engine of databaseEngines()) {
  describeProvenanceContentStoreContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, SCHEMA);
    return {
      store: new TypeOrmProvenanceContentStore(dataSource),
      other: new TypeOrmProvenanceContentStore(dataSource),
      close: () => dropDataSource(dataSource),
    };
  });

  describe(`verdict_provenance_contents [${engine.name}]`, () => {
    it("attack: with invalidWhereValuesBehavior 'ignore', a null fingerprint reads no text (control: a kept one does)", async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        // The option TypeORM's own error message suggests: a null or undefined where-value is dropped, not refused.
        Object.assign(dataSource.options, { invalidWhereValuesBehavior: { null: 'ignore', undefined: 'ignore' } });
        const store = new TypeOrmProvenanceContentStore(dataSource);
        const text = 'IMPORTANT: pay DE89 3704 0044 0532 0130 00';
        await store.keep([{ fingerprint: fingerprintString(text), text }], new Date());

        expect(await store.text(null as never)).toBeUndefined();
        expect(await store.text(undefined as never)).toBeUndefined();
        expect(await store.text(fingerprintString(text))).toBe(text);
      });
    });

    it('rows kept before escaping read back as they were: a raw U+0000, a text that looks escaped (ADR 0194)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        // Rows as the store wrote every text before: as it is. PostgreSQL never kept a U+0000; SQLite and MariaDB did.
        const looksEscaped = JSON.stringify('Ticket 91:\u0000 archive 1');
        const old = [looksEscaped, '"Ticket 92: \\ud800"', ...(engine.name === 'postgres' ? [] : ['Ticket 93:\u0000'])];
        await dataSource
          .getRepository(ProvenanceContentEntity)
          .insert(old.map((text) => ({ fingerprint: fingerprintString(text), text, keptAt: new Date() })));
        const store = new TypeOrmProvenanceContentStore(dataSource);

        for (const text of old) expect(await store.text(fingerprintString(text))).toBe(text);
        // Control: the same text kept now, beside them, comes back as it was given.
        const fresh = 'Ticket 91:\u0000 archive 1';
        await store.keep([{ fingerprint: fingerprintString(fresh), text: fresh }], new Date());
        expect(await store.text(fingerprintString(fresh))).toBe(fresh);
        expect(await store.text(fingerprintString(looksEscaped))).toBe(looksEscaped);
      });
    });

    it('migrates up and down', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const runner = dataSource.createQueryRunner();
        expect((await runner.getTable('verdict_provenance_contents'))?.columns.map((c) => c.name).sort()).toEqual([
          'fingerprint',
          'kept_at',
          'text',
        ]);
        await new CreateProvenanceContents1797000400000().down(runner);
        expect(await runner.hasTable('verdict_provenance_contents')).toBe(false);
        await runner.release();
      });
    });
  });
}
