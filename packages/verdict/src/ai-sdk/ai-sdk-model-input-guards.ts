import { Inject, Injectable } from '@nestjs/common';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { ContextReleaseService } from '../context-release/context-release.service.js';
import type { Destination } from '../context-release/destination.js';
import { ActionContextStore } from '../context/action-context.store.js';
import { ACTION_CONTEXT_OPTIONS, type ActionContextOptions } from '../context/action-context-options.interface.js';
import { principalKeyOf, moduleActorKey } from '../context/actor-key.js';
import { conversationIdOf } from '../context/conversation-id.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { ProvenanceLabels } from '../provenance/provenance-labels.js';
import { PublicMessage } from '../public-message.js';
import { moduleGuardWiring } from '../runtimes/module-guard-wiring.js';
import { AiSdkModelInputGuard, type AiSdkModelInputGuardOptions } from './ai-sdk-model-input-guard.js';

/**
 * Makes {@link AiSdkModelInputGuard}s wired to the module's context release, public message, capabilities and
 * provenance labels; answers are sealed to the principal (the module's `actorKey` of the actor, and the tenant) and
 * the conversation of the action context the model call runs in: history sealed for one actor does not pass for
 * another, even in a conversation of the same id. An actor without a stable key (no `actorKey`, and an actor that
 * is not plain JSON) rejects the generation with the key's error rather than share seals with other such actors.
 *
 * @example
 * const guard = guards.forDestination(Destination.connection('openai', 'eu'), { toolResults: { lookup_order: orderRoute } });
 */
@Injectable()
export class AiSdkModelInputGuards {
  constructor(
    private readonly releases: ContextReleaseService,
    private readonly registry: CapabilityRegistry,
    @Inject(PublicMessage) private readonly publicMessage: string,
    private readonly provenanceLabels: ProvenanceLabels,
    private readonly contexts: ActionContextStore,
    @Inject(ACTION_CONTEXT_OPTIONS) private readonly contextOptions: ActionContextOptions,
  ) {}

  /**
   * A guard for generations whose model runs at `destination`.
   * @throws VerdictConfigurationError for a `destination` that is not a `Destination`, a malformed `toolResults`
   *   route (naming the tool), or a `sealKey` that is not a Uint8Array of at least 32 bytes.
   */
  forDestination(
    destination: Destination,
    options: Omit<
      AiSdkModelInputGuardOptions,
      'releaser' | 'destination' | 'publicMessage' | 'isCapability' | 'provenanceLabels' | 'conversation'
    >,
  ): AiSdkModelInputGuard {
    const actorKey = moduleActorKey(this.contextOptions);
    const conversation = () => {
      const context = this.contexts.current();
      return context === undefined
        ? null
        : fingerprint([principalKeyOf(context, actorKey), context.tenant, conversationIdOf(context)]);
    };
    return new AiSdkModelInputGuard({
      ...options,
      ...moduleGuardWiring(this.releases, this.registry, this.publicMessage, this.provenanceLabels),
      destination,
      conversation,
    });
  }
}
