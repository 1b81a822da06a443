import { Inject, Injectable, Optional, type Type } from '@nestjs/common';
import { ContainmentScope } from '../containment/containment-scope.js';
import { ContainmentService } from '../containment/containment.service.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { type CliStreams, fail, processStreams } from './cli-output.js';
import { line } from './output-line.js';
import { CLI_STREAMS } from './cli-streams.token.js';
import type { CliCommandRunner } from './cli-program.js';
import { OPERATOR_IDENTITY, type OperatorIdentity, osOperatorIdentity } from './operator-identity.js';

interface SwitchOptions {
  readonly by?: string;
  readonly reason?: string;
  readonly json?: boolean;
}

/**
 * The runner of `contain <scope> <subject>` or `release <scope> <subject>` with `--by <opaque id>
 * --reason <text> [--json]`: engages or releases one kill switch through {@link ContainmentService}.
 * Who ran the command (the {@link OperatorIdentity} hook; default: the OS user) is recorded next to
 * `--by`; a hook that names nobody fails the command before anything changes. Engaging an engaged switch succeeds
 * and changes nothing; releasing one that is off fails. An actor key or tenant id is printed only as its fingerprint.
 */
function containmentSwitchCommand(scope: ContainmentScope, action: 'contain' | 'release'): Type<CliCommandRunner> {
  @Injectable()
  class ContainmentSwitchCommand implements CliCommandRunner {
    constructor(
      private readonly containment: ContainmentService,
      @Optional() @Inject(CLI_STREAMS) private readonly streams: CliStreams = processStreams,
      @Optional() @Inject(OPERATOR_IDENTITY) private readonly operatorIdentity: OperatorIdentity = osOperatorIdentity,
    ) {}

    async run([subject]: string[], options: SwitchOptions = {}): Promise<void> {
      const json = options.json === true;
      // A blank --by or --reason is a missing one: a usage error, and nothing runs.
      if (!options.by?.trim() || !options.reason?.trim())
        return fail(this.streams, json, '--by <opaque operator id> and --reason <text> are required', 2);
      // What is printed of the subject: a capability's name; an actor key or tenant id only as its fingerprint.
      const shown = scope === ContainmentScope.Capability ? subject! : fingerprintString(subject!);
      try {
        const command = {
          scope,
          subject: subject!,
          reason: options.reason,
          by: options.by,
          operatorIdentity: operatorIdentityOf(await this.operatorIdentity()),
        };
        const report = (facts: Record<string, unknown>, text: string) =>
          this.streams.out(json ? JSON.stringify({ scope, ...facts }) : text);
        if (action === 'release') {
          if (!(await this.containment.release(command)))
            return fail(
              this.streams,
              json,
              `no kill switch is engaged for ${scope} ${shown}: nothing was released (if contain list shows one, another operator engaged it again meanwhile)`,
            );
          return report({ released: true, subject: shown }, line`released the ${scope} kill switch for ${shown}`);
        }
        const { engaged, containment } = await this.containment.engage(command);
        const { subject: stored, engagedBy, engagedAt } = containment;
        const facts = { engaged, subject: stored, engagedBy, engagedAt: engagedAt.toISOString() };
        // The service records a repeat of the kept engagement again (ADR 0133): say so.
        const repeat = this.containment.repeatsEngagement(command, containment);
        report(
          facts,
          engaged
            ? line`contained ${scope} ${stored} (by ${engagedBy}, run by ${command.operatorIdentity})`
            : line`${scope} ${stored} was already contained (by ${engagedBy} at ${facts.engagedAt}): ${repeat ? 'the switch is unchanged; its engagement was recorded again' : 'nothing changed'}`,
        );
      } catch (error) {
        fail(this.streams, json, `${scope} ${shown}: ${(error as Error).message}`);
      }
    }
  }
  const name = `${action === 'contain' ? 'Contain' : 'Release'}${scope[0]!.toUpperCase()}${scope.slice(1)}Command`;
  Object.defineProperty(ContainmentSwitchCommand, 'name', { value: name });
  return ContainmentSwitchCommand;
}

/**
 * What the operator-identity hook answered, when it names someone: a hook that returns `undefined`, a non-string or a
 * blank string fails the command (`ContainmentService` checks the length), so no engagement or release is attributed
 * to nobody.
 */
function operatorIdentityOf(identity: unknown): string {
  if (typeof identity !== 'string' || identity.trim() === '')
    throw new VerdictConfigurationError(
      `The CLI's operator-identity hook named nobody (got ${typeof identity === 'string' ? 'a blank string' : String(identity)}): fix the operatorIdentity passed to VerdictCliModule.forRoot; nothing changed.`,
    );
  return identity;
}

/** `contain capability <name> --by <id> --reason <text> [--json]`. */
export const ContainCapabilityCommand = containmentSwitchCommand(ContainmentScope.Capability, 'contain');
/** `contain actor <key> --by <id> --reason <text> [--json]`: the key as the module's `actorKey` gives it. */
export const ContainActorCommand = containmentSwitchCommand(ContainmentScope.Actor, 'contain');
/** `contain tenant <id> --by <id> --reason <text> [--json]`. */
export const ContainTenantCommand = containmentSwitchCommand(ContainmentScope.Tenant, 'contain');
/** `release capability <name> --by <id> --reason <text> [--json]`. */
export const ReleaseCapabilityCommand = containmentSwitchCommand(ContainmentScope.Capability, 'release');
/** `release actor <key> --by <id> --reason <text> [--json]`. */
export const ReleaseActorCommand = containmentSwitchCommand(ContainmentScope.Actor, 'release');
/** `release tenant <id> --by <id> --reason <text> [--json]`. */
export const ReleaseTenantCommand = containmentSwitchCommand(ContainmentScope.Tenant, 'release');

/** Every containment switch command, for the CLI module's providers. */
export const CONTAINMENT_SWITCH_COMMANDS = [
  ContainCapabilityCommand,
  ContainActorCommand,
  ContainTenantCommand,
  ReleaseCapabilityCommand,
  ReleaseActorCommand,
  ReleaseTenantCommand,
];
