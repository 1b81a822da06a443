import { Inject, Injectable } from '@nestjs/common';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import {
  CAPABILITY_REGISTRY_OPTIONS,
  type CapabilityRegistryOptions,
} from './capability-registry-options.interface.js';
import type { CapabilityDefinition } from './capability-definition.js';
import { assertWellFormed } from './definition-checks.js';
import { assertGatesConfigured } from './gate-configuration.js';
import { assertGivenStores } from './given-stores.js';
import { assertOneBudgetPerName } from '../budgets/budget-configuration.js';
import { withModuleActorKey } from './module-actor-key.js';

/** A tool `VerdictTools` made: its model-facing name, its capability, and whether it is bound or guarded. */
export interface ToolBinding {
  readonly tool: string;
  readonly capability: string;
  readonly kind: 'bound' | 'guarded';
}

/**
 * Every capability the application declared, keyed by name. Filled at boot from `@Capability` methods
 * and `forRoot({ capabilities })`; wiring mistakes throw {@link VerdictConfigurationError}.
 */
@Injectable()
export class CapabilityRegistry {
  private readonly definitions = new Map<string, CapabilityDefinition>();
  private readonly pendingBindings: { capability: string; tool: string; needsExecutor: boolean }[] = [];
  private readonly madeTools = new WeakMap<object, ToolBinding>();
  private readonly toolBindings: ToolBinding[] = [];
  private booted = false;

  /** @throws VerdictConfigurationError at boot for a store option given that is no store (`assertGivenStores`). */
  constructor(@Inject(CAPABILITY_REGISTRY_OPTIONS) private readonly options: CapabilityRegistryOptions) {
    assertGivenStores(options);
  }

  /**
   * Adds a definition.
   * @throws VerdictConfigurationError for a blank or duplicate name, a missing execution-target policy,
   *   or a rate limit / at-most-once policy that is malformed or has no store.
   */
  register(definition: CapabilityDefinition): void {
    assertWellFormed(definition);
    const { name } = definition;
    const existing = this.definitions.get(name);
    if (existing !== undefined) {
      throw new VerdictConfigurationError(
        `Capability "${name}" is declared twice: at ${existing.declaredAt} and at ${definition.declaredAt}. Rename one.`,
        {
          capability: name,
        },
      );
    }
    assertGatesConfigured(definition, this.options);
    this.assertOneScopePerModel(definition);
    assertOneBudgetPerName(definition, this.definitions.values());
    this.definitions.set(name, withModuleActorKey(definition, this.options));
  }

  /**
   * Capabilities that share a forbidden-states model share its folded state only under one scope: a model
   * declared per conversation here and per actor there — or under two keys of the same name — would fold a
   * composed attack into two states. So every declaration of a model must pass the same scope object.
   */
  private assertOneScopePerModel(definition: CapabilityDefinition): void {
    const policy = definition.forbidStates;
    if (policy === undefined) return;
    for (const other of this.definitions.values()) {
      const otherPolicy = other.forbidStates;
      if (
        otherPolicy === undefined ||
        otherPolicy.modelFingerprint !== policy.modelFingerprint ||
        otherPolicy.scope === policy.scope
      )
        continue;
      const scopes =
        policy.scope.id === otherPolicy.scope.id
          ? `another ${policy.scope.id} scope object`
          : `per ${policy.scope.id} instead of per ${otherPolicy.scope.id}`;
      throw new VerdictConfigurationError(
        `Capability "${definition.name}" (${definition.declaredAt}) forbids states of the same model as "${other.name}", but ${scopes}: declare the model's TrajectoryScope once and pass that same object to every forbidStates of the model.`,
        { capability: definition.name },
      );
    }
  }

  /** The definition, or `undefined` for an unknown name. */
  find(name: string): CapabilityDefinition | undefined {
    return this.definitions.get(name);
  }

  all(): readonly CapabilityDefinition[] {
    return [...this.definitions.values()];
  }

  /** Whether boot-time discovery has finished; before it, no proposal is evaluated. */
  get isBooted(): boolean {
    return this.booted;
  }

  /** @throws VerdictConfigurationError until boot-time discovery has finished: no proposal runs before it. */
  assertBooted(): void {
    if (!this.booted)
      throw new VerdictConfigurationError(
        'Verdict has not finished booting: initialise the application (app.init() / moduleRef.init()) before proposals run.',
      );
  }

  /**
   * @internal Used by `VerdictTools`.
   * Checks that a tool may be bound to `capability`: known and, for a bound tool, with an executor. Before boot completes
   * the check is deferred to {@link completeBoot}, so a bad binding still stops the application starting.
   */
  requireBindable(capability: string, tool: string, needsExecutor = true): void {
    if (!this.booted) {
      this.pendingBindings.push({ capability, tool, needsExecutor });
      return;
    }
    const definition = this.definitions.get(capability);
    if (definition === undefined) {
      throw new VerdictConfigurationError(
        `Tool "${tool}" is bound to unknown capability "${capability}". Declare it with @Capability or defineCapability.`,
        {
          capability,
        },
      );
    }
    if (!needsExecutor && definition.requiresConfirmation !== undefined) {
      throw new VerdictConfigurationError(
        `Tool "${tool}" is guarded by capability "${capability}", which requires confirmation: a guarded tool's own handler cannot be bound to an approval. Use VerdictTools.bound.`,
        { capability },
      );
    }
    if (!needsExecutor && definition.requiresReview !== undefined) {
      throw new VerdictConfigurationError(
        `Tool "${tool}" is guarded by capability "${capability}", which requires review: a guarded tool's own handler cannot run on a worker after review. Use VerdictTools.bound.`,
        { capability },
      );
    }
    if (needsExecutor && definition.executor === null) {
      throw new VerdictConfigurationError(
        `Tool "${tool}" is bound to capability "${capability}", which has no executor (${definition.declaredAt}).`,
        {
          capability,
        },
      );
    }
  }

  /** @internal Used by `VerdictTools`: remembers a tool it made, for the wiring audit (`verdict validate`). */
  recordTool(tool: object, binding: ToolBinding): void {
    this.madeTools.set(tool, binding);
    this.toolBindings.push(binding);
  }

  /** Every tool `VerdictTools` made, in the order they were made. */
  bindings(): readonly ToolBinding[] {
    return [...this.toolBindings];
  }

  /** How `VerdictTools` made `tool`, or `undefined` when it did not make it (a raw tool). */
  bindingOf(tool: object): ToolBinding | undefined {
    return this.madeTools.get(tool);
  }

  /** @internal Ends discovery and checks every binding made so far (called at application bootstrap). */
  completeBoot(): void {
    this.booted = true;
    for (const binding of this.pendingBindings.splice(0))
      this.requireBindable(binding.capability, binding.tool, binding.needsExecutor);
  }
}
