import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  type ClaimResolutionChoice,
  ExecutionClaimsService,
  checkedOperatorField,
} from '../execution-claims/execution-claims.service.js';
import { ExecutionClaimStatus } from '../execution-claims/execution-claim-status.js';
import { type CliStreams, fail, processStreams } from './cli-output.js';
import { line } from './output-line.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';
import { OPERATOR_IDENTITY, type OperatorIdentity, osOperatorIdentity } from './operator-identity.js';

interface ResolveOptions {
  readonly by?: string;
  readonly reason?: string;
  readonly force?: boolean;
  readonly json?: boolean;
}

const CHOICES: readonly ClaimResolutionChoice[] = ['completed', 'retryable'];

/**
 * `claims resolve <id> completed|retryable --by <opaque id> --reason <text> [--force] [--json]`.
 * `completed`: the effect happened. `retryable`: it did not; the operation may be admitted once more.
 * A still-`claimed` claim needs `--force` (its executor may still be running). Who ran the command (the
 * {@link OperatorIdentity} hook; default: the OS user) is recorded next to `--by`.
 */
@Injectable()
export class ClaimsResolveCommand implements CliCommandRunner {
  constructor(
    private readonly claims: ExecutionClaimsService,
    @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
    @Optional() @Inject(OPERATOR_IDENTITY) private readonly operatorIdentity: OperatorIdentity = osOperatorIdentity,
  ) {}

  async run([claimId, choice]: string[], options: ResolveOptions = {}): Promise<void> {
    const json = options.json === true;
    if (!CHOICES.includes(choice as ClaimResolutionChoice))
      return fail(this.streams, json, `resolution must be completed or retryable, not "${choice}"`, 2);
    // A blank --by or --reason is a missing one: a usage error, and nothing runs.
    if (!options.by?.trim() || !options.reason?.trim())
      return fail(this.streams, json, '--by <opaque operator id> and --reason <text> are required', 2);
    try {
      // The hook must name someone: a blank, missing or over-long identity fails before anything changes.
      const operatorIdentity = checkedOperatorField('operator identity', await this.operatorIdentity());
      const resolution = await this.claims.resolve(
        claimId,
        choice as ClaimResolutionChoice,
        options.by,
        options.reason,
        options.force === true,
        operatorIdentity,
      );
      switch (resolution.outcome) {
        case 'resolved': {
          const { id, status, attempt } = resolution.claim;
          this.streams.out(
            json
              ? JSON.stringify({ id, from: resolution.from, status, attempt, by: options.by, operatorIdentity })
              : line`claim ${id}: ${resolution.from} -> ${status} (by ${options.by!}, run by ${operatorIdentity})`,
          );
          return;
        }
        case 'not_found':
          return fail(this.streams, json, `no execution claim ${claimId}`);
        case 'force_required':
          return fail(
            this.streams,
            json,
            `claim ${claimId} is still claimed (its executor may be running): investigate, then repeat with --force`,
          );
        case 'invalid_state': {
          const { status, attempt } = resolution.claim;
          // Still resolvable: the claim moved since it was read (another operator, a new attempt admitted).
          const moved = status === ExecutionClaimStatus.Claimed || status === ExecutionClaimStatus.Indeterminate;
          return fail(
            this.streams,
            json,
            moved
              ? `claim ${claimId} changed since it was read (now ${status}, attempt ${attempt}): nothing was resolved; investigate it as it is, then repeat`
              : `claim ${claimId} is ${status}: only claimed or indeterminate claims can be resolved`,
          );
        }
      }
    } catch (error) {
      fail(this.streams, json, (error as Error).message);
    }
  }
}
