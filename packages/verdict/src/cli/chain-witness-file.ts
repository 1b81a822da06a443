import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { EvidenceKind } from '../evidence/chain-link.js';
import type { ChainWitness } from '../evidence/chain-verification.js';

const HASH = /^[0-9a-f]{64}$/;

/** What `--witness` reads: an earlier `verdict evidence verify --json` (other fields are ignored). */
const WITNESS_FILE = z.object({
  streams: z.array(
    z.object({
      kind: z.enum([EvidenceKind.Decision, EvidenceKind.Release]),
      stream: z.string().min(1),
      checkpointHead: z
        .object({
          checkpointSequence: z.number().int().positive(),
          checkpointHash: z.string().regex(HASH),
          sequence: z.number().int().nonnegative(),
        })
        .nullable(),
    }),
  ),
});

/** Why a witness file was refused: the CLI's usage error. */
export class InvalidWitnessFileError extends Error {
  override readonly name = 'InvalidWitnessFileError';
}

/**
 * The streams of the `verify --json` output kept at `path` (docs/evidence.md, "Witness").
 * @throws InvalidWitnessFileError when the file cannot be read or is not such an output.
 */
export async function readChainWitness(path: string): Promise<ChainWitness[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidWitnessFileError(`--witness: cannot read ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidWitnessFileError(
      `--witness: ${path} is not JSON: give the output of \`verdict evidence verify --json\``,
    );
  }
  const witness = WITNESS_FILE.safeParse(parsed);
  if (!witness.success)
    throw new InvalidWitnessFileError(
      `--witness: ${path} is not the output of \`verdict evidence verify --json\` (${witness.error.issues[0]?.path.join('.') ?? ''}: ${witness.error.issues[0]?.message ?? ''})`,
    );
  return witness.data.streams;
}
