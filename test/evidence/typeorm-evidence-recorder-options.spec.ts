import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { type CheckpointKey, VerdictConfigurationError } from '@verdict/nestjs';
import {
  TypeOrmEvidenceRecorder,
  type TypeOrmEvidenceRecorderOptions,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { dropDataSource, openDataSource, streamDecision, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const SECRET = 'only the application';
const HMAC: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'options', secret: SECRET };
const ed25519 = generateKeyPairSync('ed25519');
const x25519 = generateKeyPairSync('x25519');
const ED25519: CheckpointKey = { algorithm: 'ed25519', keyId: 'options', ...ed25519 };
const another = generateKeyPairSync('ed25519');
const pem = (pair: typeof ed25519) => ({
  publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
});

/** Options as an application might build them from its environment: any value, whatever the type says. */
const options = (value: Record<string, unknown>) => value as TypeOrmEvidenceRecorderOptions;

/** What a user sees of a construction: the recorder, or what it threw. */
function construct(dataSource: DataSource, value: TypeOrmEvidenceRecorderOptions): unknown {
  try {
    return new TypeOrmEvidenceRecorder(dataSource, value);
  } catch (error) {
    return error;
  }
}

/** Writes a record, lets the recorder seal as configured, and answers the stream's verdict. */
async function recordAndVerify(recorder: TypeOrmEvidenceRecorder, manual: boolean) {
  await recorder.recordDecision(streamDecision('default', 'refund'));
  if (manual) await recorder.seal();
  else await recorder.whenSealed();
  return (await recorder.verify()).find((verdict) => verdict.stream === 'default');
}

describe('TypeOrmEvidenceRecorder options', () => {
  describe('refused when it is constructed, naming the option and never the secret', () => {
    let dataSource: DataSource;
    beforeAll(async () => {
      dataSource = await openDataSource({ name: 'sqlite' }, SCHEMA);
    });
    afterAll(() => dropDataSource(dataSource));

    it.each([
      ['seal', 'an unknown mode (from an environment variable)', options({ seal: 'after_write' })],
      ['seal', 'a mode in another case', options({ seal: 'Manual' })],
      ['seal', 'blank', options({ seal: '' })],
      ['sealDelayMs', 'negative', options({ sealDelayMs: -1 })],
      ['sealDelayMs', 'NaN', options({ sealDelayMs: Number.NaN })],
      ['sealDelayMs', 'infinite', options({ sealDelayMs: Number.POSITIVE_INFINITY })],
      ['sealDelayMs', "past a timer's longest", options({ sealDelayMs: 2 ** 31 })],
      ['sealDelayMs', 'a string', options({ sealDelayMs: '200' })],
      ['checkpointKey', 'the secret itself', options({ checkpointKey: SECRET })],
      ['checkpointKey.algorithm', 'another HMAC', options({ checkpointKey: { ...HMAC, algorithm: 'hmac-sha512' } })],
      ['checkpointKey.algorithm', 'a JWT name', options({ checkpointKey: { ...HMAC, algorithm: 'HS256' } })],
      ['checkpointKey.keyId', 'blank', options({ checkpointKey: { ...HMAC, keyId: ' ' } })],
      ['checkpointKey.secret', 'empty', options({ checkpointKey: { ...HMAC, secret: '' } })],
      [
        'checkpointKey.secret',
        'missing (an unset variable)',
        options({ checkpointKey: { ...HMAC, secret: undefined } }),
      ],
      ['checkpointKey.publicKey', 'missing', options({ checkpointKey: { ...ED25519, publicKey: undefined } })],
      [
        'checkpointKey.publicKey',
        'an X25519 key',
        options({ checkpointKey: { ...ED25519, publicKey: x25519.publicKey } }),
      ],
      ['checkpointKey.privateKey', 'not PEM', options({ checkpointKey: { ...ED25519, privateKey: 'not a PEM' } })],
      [
        'checkpointKey.privateKey',
        'the public key',
        options({ checkpointKey: { ...ED25519, privateKey: ed25519.publicKey } }),
      ],
    ])('%s: %s', (option, _case, value) => {
      const refused = construct(dataSource, value);

      expect(refused).toBeInstanceOf(VerdictConfigurationError);
      expect((refused as Error).message).toContain(`\`${option}\``);
      expect((refused as Error).message).not.toContain(SECRET);
    });
  });

  it.each([
    ['the defaults (a background seal after each write)', {}, false],
    ["'after-write' with no delay", { seal: 'after-write', sealDelayMs: 0 }, false],
    ["'manual', sealed by seal()", { seal: 'manual' }, true],
    ['an HMAC-SHA256 key', { checkpointKey: HMAC, sealDelayMs: 0 }, false],
    ['an Ed25519 key pair as KeyObjects', { checkpointKey: ED25519, seal: 'manual' }, true],
    [
      'an Ed25519 key pair as PEM',
      {
        checkpointKey: {
          algorithm: 'ed25519',
          keyId: 'options',
          publicKey: ed25519.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
          privateKey: ed25519.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        },
        seal: 'manual',
      },
      true,
    ],
  ] as Array<[string, TypeOrmEvidenceRecorderOptions, boolean]>)(
    'links and verifies with %s (control)',
    async (_name, value, manual) => {
      await withDataSource({ name: 'sqlite' }, SCHEMA, async (dataSource) => {
        const verdict = await recordAndVerify(new TypeOrmEvidenceRecorder(dataSource, value), manual);

        expect(verdict).toMatchObject({ intact: true, records: 1, unsealed: 0 });
        if (value.checkpointKey !== undefined) expect(verdict).toMatchObject({ checkpoints: 1 });
      });
    },
  );

  /**
   * Each part was checked alone: a private key given with another pair's public key was taken, its seals signed
   * checkpoints `verify` then refused (`checkpoint_signature`, which reads as tampering), and every prune refused.
   */
  it.each([
    ['KeyObjects', { publicKey: another.publicKey, privateKey: ed25519.privateKey }],
    ['PEM', { publicKey: pem(another).publicKey, privateKey: pem(ed25519).privateKey }],
    ['a private key as the public key', { publicKey: another.privateKey, privateKey: ed25519.privateKey }],
  ])('refuses an Ed25519 private key with the public key of another pair (%s), showing neither', async (_as, parts) => {
    await withDataSource({ name: 'sqlite' }, SCHEMA, async (dataSource) => {
      const refused = construct(dataSource, { checkpointKey: { algorithm: 'ed25519', keyId: 'options', ...parts } });

      expect(refused).toBeInstanceOf(VerdictConfigurationError);
      expect((refused as Error).message).toContain('not one key pair');
      for (const part of [pem(ed25519), pem(another)].flatMap((each) => [each.publicKey, each.privateKey]))
        expect((refused as Error).message).not.toContain(part.split('\n')[1]);
    });
  });

  it('constructs with an Ed25519 private key given as the public key of its own pair (control)', async () => {
    await withDataSource({ name: 'sqlite' }, SCHEMA, async (dataSource) => {
      const key: CheckpointKey = { algorithm: 'ed25519', keyId: 'options', ...ed25519, publicKey: ed25519.privateKey };
      const verdict = await recordAndVerify(
        new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: key, seal: 'manual' }),
        true,
      );

      expect(verdict).toMatchObject({ intact: true, records: 1, unsealed: 0, checkpoints: 1 });
    });
  });

  it('constructs with an Ed25519 public key only, to verify (control)', async () => {
    await withDataSource({ name: 'sqlite' }, SCHEMA, async (dataSource) => {
      const key: CheckpointKey = { algorithm: 'ed25519', keyId: 'options', publicKey: ed25519.publicKey };

      expect(construct(dataSource, { checkpointKey: key, seal: 'manual' })).toBeInstanceOf(TypeOrmEvidenceRecorder);
    });
  });
});
