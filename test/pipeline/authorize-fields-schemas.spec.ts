import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import { Expose } from 'class-transformer';
import { IsOptional, IsString } from 'class-validator';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  type CapabilityDefinition,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';

/**
 * `authorizeFields` names fields of the validated arguments; a misspelt name (`ownr` for `owner`) would never be
 * checked while `owner` goes unauthorized. The boot check reads the declared fields through zod wrappers and from
 * a DTO class's class-validator metadata, not only from a plain `z.object`'s `.shape`.
 */

const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: {} };

const noteFields = { title: z.string(), owner: z.string().optional() };

class UpdateNote {
  @IsString()
  title!: string;

  @IsOptional()
  @IsString()
  owner?: string;
}

/** `owner` is written as `owner_id` in the validated arguments. */
class UpdateNoteRenamed {
  @IsString()
  title!: string;

  @IsOptional()
  @IsString()
  @Expose({ name: 'owner_id' })
  owner?: string;
}

function updateNote(overrides: Partial<CapabilityDefinition>): CapabilityDefinition {
  return {
    ...defineCapability(
      {
        name: 'notes.update',
        description: 'Update a note',
        action: 'update',
        subject: 'Note',
        arguments: z.object(noteFields),
        resolveTarget: fromProposal(() => ({ id: 1 })),
        executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
          name: 'note',
          identity: (note: { id: number }) => note.id,
        }),
      },
      () => 'updated',
    ),
    ...overrides,
  };
}

/** Alice may update a note's title, never its owner. */
async function boot(definition: CapabilityDefinition) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: {
          createForContext: () => createMongoAbility([{ action: 'update', subject: 'Note', fields: ['title'] }]),
        },
        evidence: new InMemoryEvidenceRecorder(),
        capabilities: [definition],
      }),
    ],
  }).compile();
  await moduleRef.init();
  const update = (args: object) =>
    moduleRef
      .get(ActionContextStore)
      .run(alice, () => moduleRef.get(VerdictService).execute({ capability: 'notes.update', arguments: args }));
  return { moduleRef, update };
}

async function bootError(definition: CapabilityDefinition): Promise<Error> {
  try {
    const { moduleRef } = await boot(definition);
    await moduleRef.close();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected boot to fail');
}

const object = z.object(noteFields);
/** Schemas a plain `.shape` does not reach. */
const wrapped: Array<[string, z.ZodType]> = [
  [
    'a transformed z.object piped into a z.object',
    object.transform((note) => ({ ...note, title: note.title.trim() })).pipe(z.object(noteFields)),
  ],
  ['a z.object piped into another', object.pipe(z.object(noteFields))],
  ['a preprocessed z.object', z.preprocess((raw) => raw, object)],
  ['an optional z.object', object.optional()],
  ['an intersection of z.objects', z.intersection(z.object({ title: z.string() }), z.object({ owner: z.string() }))],
  ['a z.lazy z.object', z.lazy(() => object)],
];

describe('authorizeFields names fields its argument schema declares, whatever the schema kind', () => {
  it.each(wrapped)('attack: a misspelt field on %s fails at boot, naming it', async (_kind, schema) => {
    const error = await bootError(updateNote({ arguments: schema, authorizeFields: ['ownr'] }));

    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect(error.message).toContain('authorizeFields names "ownr", which its argument schema does not declare');
  });

  it('attack: a misspelt field on a class-validator DTO fails at boot, naming it', async () => {
    const error = await bootError(updateNote({ arguments: UpdateNote, authorizeFields: ['ownr'] }));

    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect(error.message).toContain('authorizeFields names "ownr", which its argument schema does not declare');
  });

  it('attack: a DTO property renamed by @Expose is authorized under the name it is validated as', async () => {
    const error = await bootError(updateNote({ arguments: UpdateNoteRenamed, authorizeFields: ['owner'] }));

    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect(error.message).toContain('authorizeFields names "owner"');
  });

  it.each<[string, z.ZodType]>([
    ['no schema at all (z.any())', z.any()],
    // The transform's result is the application's code: it may rename the field CASL is asked about.
    [
      'a transform that renames a field',
      z
        .object({ title: z.string(), owner_id: z.string().optional() })
        .transform(({ title, owner_id }) => ({ title, owner: owner_id })),
    ],
  ])(
    'attack: arguments whose fields cannot be read (%s) fail closed at boot, whatever the name',
    async (_kind, schema) => {
      for (const field of ['owner', 'owner_id']) {
        const error = await bootError(updateNote({ arguments: schema, authorizeFields: [field] }));

        expect(error).toBeInstanceOf(VerdictConfigurationError);
        expect(error.message).toContain('cannot be read from its argument schema');
      }
    },
  );

  it.each([
    ['a refined z.object', object.refine(() => true)],
    ['a superRefined z.object', object.superRefine(() => undefined)],
    ['a strict z.object', object.strict()],
  ])('a misspelt field on %s (still a z.object in zod 4) fails at boot', async (_kind, schema) => {
    const error = await bootError(updateNote({ arguments: schema, authorizeFields: ['ownr'] }));

    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect(error.message).toContain('"ownr"');
  });

  it.each<[string, z.ZodType | (new () => object), string]>([
    [
      'a transformed z.object piped into a z.object',
      object.transform((note) => ({ ...note, title: note.title.trim() })).pipe(z.object(noteFields)),
      'owner',
    ],
    ['a z.object piped into another', object.pipe(z.object(noteFields)), 'owner'],
    ['a class-validator DTO', UpdateNote, 'owner'],
    ['a DTO whose property @Expose renames', UpdateNoteRenamed, 'owner_id'],
  ])(
    'control: the correct field on %s boots, and field authorization still denies setting it',
    async (_kind, schema, field) => {
      const { moduleRef, update } = await boot(updateNote({ arguments: schema, authorizeFields: [field] }));

      const retitled = await update({ title: 'groceries' });
      const reowned = await update({ title: 'groceries', [field]: 'mallory' });

      expect(retitled).toMatchObject({ executed: true });
      expect(reowned).toMatchObject({ executed: false, decision: { disposition: 'deny' } });
      expect(reowned.decision.reason).toContain(`update Note.${field} denied`);
      await moduleRef.close();
    },
  );
});
