import { Inject, Injectable, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { randomUUID } from 'node:crypto';
import type { ZodType, z } from 'zod';
import { inputTokenBound } from '../budgets/input-token-bound.js';
import { ModelBudgetGate } from '../budgets/model-budget.gate.js';
import { ActionContextStore } from '../context/action-context.store.js';
import type { ActionContext } from '../context/action-context.js';
import {
  actorFingerprint,
  defaultActorKey,
  principalKeyOf,
  tenantFingerprintOf,
  moduleActorKey,
} from '../context/actor-key.js';
import { conversationIdOf } from '../context/conversation-id.js';
import { Trust } from '../context-release/trust.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { QuarantineExtractionError, QuarantineExtractionFailure } from '../errors/quarantine-extraction.error.js';
import { QuarantinedExtraction } from '../events/quarantined-extraction.event.js';
import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';
import { extractedContent } from '../provenance/extraction-passages.js';
import { labelContent, type LabelledContent } from '../provenance/labelled-content.js';
import { contentRecord } from '../provenance/content-record.js';
import { modelFactsOf } from '../langchain/model-facts.js';
import { usageMetadataOf } from '../langchain/usage-metadata.js';
import { type ProvenanceRecord, ProvenanceRecordKind } from '../provenance/provenance-record.js';
import type { ProvenanceSource } from '../provenance/provenance-source.js';
import { rememberBounded } from '../shared/remember-bounded.js';
import { isPositiveInteger } from '../shared/is-positive-integer.js';
import type { Extraction } from './extraction.js';
import type { QuarantineChatModel, QuarantinePromptMessage } from './quarantine-chat-model.js';
import { answerText, extractionPrompt, extractionSchema, parseAnswer } from './extraction-prompt.js';
import { assertJsonOutput, assertJsonOutputSchema } from './json-output.js';
import type { QuarantineHandle } from './quarantine-handle.js';
import {
  DEFAULT_QUARANTINE_CAPACITY,
  QUARANTINE_OPTIONS,
  type QuarantineOptions,
} from './quarantine-options.interface.js';
import { emitSafely } from '../events/emit-safely.js';

/** Throws unless `text` is a string: the application's wiring mistake, found before anything is held. */
function assertText(text: unknown, method: string): void {
  if (typeof text !== 'string')
    throw new VerdictConfigurationError(`${method} holds text: a string; got ${kindOf(text)}.`);
}

/**
 * Throws unless `handle` is a handle (or its id) and `options` omitted or `{ instruction? }`: a wiring mistake,
 * found before the handle is looked up, the model asked or an event raised.
 */
function assertExtractArguments(handle: unknown, options: unknown): void {
  const id = typeof handle === 'object' && handle !== null ? (handle as { id?: unknown }).id : handle;
  if (typeof id !== 'string')
    throw new VerdictConfigurationError(
      `QuarantineService.extract needs a quarantine handle or its id (a string); got ${kindOf(handle)}.`,
    );
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new VerdictConfigurationError(
      `QuarantineService.extract takes options { instruction? } or none; got ${kindOf(options)}.`,
    );
  const instruction = (options as { instruction?: unknown }).instruction;
  if (instruction !== undefined && typeof instruction !== 'string')
    throw new VerdictConfigurationError(
      `QuarantineService.extract needs options.instruction to be a string; got ${kindOf(instruction)}.`,
    );
}

/** What kind of value `value` is, for an error message: never the value itself. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

/** What a handle stands for: the text the quarantined model reads, its untrusted items, whose it is. */
interface Quarantined {
  readonly text: string;
  readonly passages: readonly LabelledContent[];
  readonly handle: QuarantineHandle;
  readonly owner: string;
}

/** Who extracts: the action context, and its actor's fingerprint from the one ask of the key (`ownerOf`). */
interface Caller {
  readonly context: ActionContext;
  readonly actor: string;
}

/** Options of one extraction. */
export interface ExtractOptions {
  /** What to look for, in words (`the IBAN and amount due`): passed to the quarantined model with the schema. */
  readonly instruction?: string;
}

/**
 * Quarantined reading (docs/quarantine.md): untrusted content is held here and the deciding model gets a
 * {@link QuarantineHandle} instead; {@link extract} asks the module's quarantined model — no tools, never the
 * deciding model's context — for a schema-typed value, which keeps the label of its source. One extra model
 * call per extraction, counted against the module's `modelBudgets` when it has them. Handles live in this process's
 * memory (bounded), for the actor, tenant and conversation that made them.
 *
 * @example
 * const handle = quarantine.quarantine(billText, ProvenanceSource.mcp('files'));
 * const { value, content } = await quarantine.extract(handle, z.object({ iban: z.string(), amount: z.number() }));
 */
@Injectable()
export class QuarantineService {
  private readonly held = new Map<string, Quarantined>();
  private readonly clock: () => Date;

  constructor(
    @Inject(QUARANTINE_OPTIONS) private readonly options: QuarantineOptions,
    private readonly contexts: ActionContextStore,
    private readonly modelBudgets: ModelBudgetGate,
    @Optional() private readonly events?: EventEmitter2,
  ) {
    this.clock = options.clock ?? (() => new Date());
    const quarantine = options.quarantine;
    // Checked here, not at the first extraction: a model without `invoke` would fail a run half-way.
    if (quarantine !== undefined && typeof quarantine?.model?.invoke !== 'function')
      throw new VerdictConfigurationError(
        'quarantine.model must be a chat model with an invoke function (any LangChain chat model).',
      );
    // Under model budgets every extraction is reserved by the model's name, price and maximum output: a model they
    // cannot count (unnamed or unpriced under a cost budget, no maximum anywhere) would fail every extraction.
    if (quarantine !== undefined && modelBudgets.configured)
      modelBudgets.assertCountable(modelFactsOf(quarantine.model), 'The quarantined model (quarantine.model)');
    const capacity = quarantine?.capacity;
    // 0 would forget every handle as it is made; NaN or Infinity would never forget one.
    if (capacity !== undefined && !isPositiveInteger(capacity))
      throw new VerdictConfigurationError('quarantine.capacity must be a positive integer (the handles kept).');
  }

  /**
   * Throws unless the module has a quarantined model: what offers extraction to an agent checks this when it is
   * built, so that a run never fails at its first extraction.
   * @throws VerdictConfigurationError when the module option `quarantine: { model }` is missing.
   */
  assertExtractable(user: string): void {
    if (this.options.quarantine === undefined)
      throw new VerdictConfigurationError(`${user} needs the module option quarantine: { model }.`);
  }

  /**
   * Holds `text` from `source` as untrusted content and returns its handle: what the deciding model may see. The
   * handle is the action context's principal's, in its conversation.
   * @throws VerdictConfigurationError when `text` is not a string: nothing is held.
   * @throws MissingActionContextError outside any action context: there is no principal for the handle to be.
   * @example const handle = quarantine.quarantine(document.pageContent, ProvenanceSource.retrieval('inbox'));
   */
  quarantine(text: string, source: ProvenanceSource): QuarantineHandle {
    assertText(text, 'QuarantineService.quarantine');
    return this.quarantineContent(text, [labelContent(text, source, Trust.Untrusted)]);
  }

  /**
   * Holds `text`, whose labelled items are `items` (a tool result as the provenance tracker labelled it: the
   * whole text, or its untrusted paths), and returns its handle. The untrusted items are the source passages an
   * approver is shown next to a value extracted from it.
   * @throws VerdictConfigurationError when `text` is not a string, `items` not an array, no item is untrusted
   *   (quarantine is for content nobody vouches for), or the actor has no stable key (`actorKey`): nothing is held.
   * @throws MissingActionContextError outside any action context: there is no principal for the handle to be.
   */
  quarantineContent(text: string, items: readonly LabelledContent[]): QuarantineHandle {
    assertText(text, 'QuarantineService.quarantineContent');
    if (!Array.isArray(items))
      throw new VerdictConfigurationError(
        `QuarantineService.quarantineContent needs the text's labelled items as an array; got ${kindOf(items)}.`,
      );
    const passages = items.filter((item) => item.label.trust === Trust.Untrusted);
    if (passages.length === 0)
      throw new VerdictConfigurationError('Only untrusted content is quarantined: label it untrusted first.');
    const { owner } = this.ownerOf(this.contexts.require());
    const sources = new Map(passages.map(({ label }) => [label.source.toString(), label.source]));
    const handle: QuarantineHandle = Object.freeze({
      id: `q-${randomUUID()}`,
      sources: Object.freeze([...sources.values()]),
    });
    rememberBounded(
      this.held,
      handle.id,
      Object.freeze({
        text,
        passages: Object.freeze([...passages]),
        handle,
        owner,
      }),
      this.options.quarantine?.capacity ?? DEFAULT_QUARANTINE_CAPACITY,
    );
    return handle;
  }

  /**
   * Asks the quarantined model for a value of `schema` from the handle's content. The value's
   * {@link Extraction.content} is untrusted under the handle's sources: put it in the window of any call that
   * uses the value, and provenance treats the value as derived from them. With the module's `modelBudgets`, the
   * call is counted as an agent's model call is (docs/budgets.md): its estimate — the prompt's tokens plus the
   * model's maximum output — is reserved in every budget of the action context's actor, tenant or conversation
   * before the model is asked, and settled with the answer's `usage_metadata` (no usage, or a model that throws,
   * keeps the estimate). An unpriced or unbounded quarantined model does not boot, so `UnpricedModelError` is
   * never thrown here.
   * @throws QuarantineExtractionError when no value fits the schema (the answer is never returned as text), or
   *   the handle is unknown here (another process, another actor or tenant, forgotten).
   * @throws ModelBudgetExceededError when a model budget has no room for the call: the quarantined model is not
   *   asked, and the agent run ends (a `RunStoppingError`, never an answer to the deciding model).
   * @throws MissingModelBudgetScopeError when the action context has no key for a model budget's scope.
   * @throws MissingActionContextError outside any action context: no handle is anyone's to read there.
   * @throws VerdictConfigurationError when the module has no `quarantine.model`, `handle` is neither a handle nor its
   *   id, `options` is neither omitted nor `{ instruction? }` with a string instruction (`null` included: the model
   *   is not asked), or `schema` outputs something that is not plain JSON (a bigint, a Date, a Map, a class
   *   instance: by its type before the model is asked, or a transform's after parsing); nothing is recorded and no
   *   event is raised then.
   */
  async extract<S extends ZodType>(
    handle: QuarantineHandle | string,
    schema: S,
    options: ExtractOptions = {},
  ): Promise<Extraction<z.output<S>>> {
    this.assertExtractable('QuarantineService.extract');
    const model = this.options.quarantine!.model;
    assertExtractArguments(handle, options);
    const id = typeof handle === 'string' ? handle : handle.id;
    const jsonSchema = extractionSchema(schema);
    const facts = { handleFingerprint: fingerprintString(id), schemaFingerprint: fingerprint(jsonSchema) };
    // The application's schema must output plain JSON: named before the model is asked or anything is emitted.
    const schemaName = `with schemaFingerprint ${facts.schemaFingerprint}`;
    assertJsonOutputSchema(schema, schemaName);
    // Whose the caller is first: outside any action context, or for an actor without a stable key, no handle is
    // anyone's to read (the context or key error), held or not.
    // The key is asked once here: the event names the actor the handle's owner was found by (ADR 0208).
    const context = this.contexts.require();
    const { owner, actor } = this.ownerOf(context);
    const caller = { context, actor };
    const held = this.held.get(id);
    if (held === undefined || held.owner !== owner)
      throw this.failed(QuarantineExtractionFailure.UnknownHandle, facts, undefined, caller);
    const answer = await this.ask(model, extractionPrompt(held.text, jsonSchema, options.instruction), context);
    if (Array.isArray(answer.tool_calls) && answer.tool_calls.length > 0)
      throw this.failed(QuarantineExtractionFailure.ToolCall, facts, held, caller);
    const parsed = parseAnswer(answerText(answer.content));
    if (parsed === undefined) throw this.failed(QuarantineExtractionFailure.NotJson, facts, held, caller);
    const result = schema.safeParse(parsed.value);
    if (!result.success)
      throw this.failed(
        QuarantineExtractionFailure.SchemaMismatch,
        facts,
        held,
        caller,
        issuePaths(result.error.issues, jsonSchema),
      );
    // A transform's output is known only now: still the schema's fault, thrown before anything is recorded or emitted.
    const text = assertJsonOutput(result.data, schemaName);
    const content = extractedContent(text, held.passages);
    await this.record(content, held.passages);
    this.emit('extracted', facts, held, caller, fingerprintString(text));
    return Object.freeze({ value: result.data as z.output<S>, text, content });
  }

  /**
   * The quarantined model's answer to `prompt`; under model budgets, only when its estimate fits them (the prompt's
   * bound, as a runtime's budget middleware estimates a call, plus the model's maximum output).
   */
  private ask(model: QuarantineChatModel, prompt: QuarantinePromptMessage[], context: ActionContext) {
    if (!this.modelBudgets.configured) return model.invoke(prompt);
    const estimate = { ...modelFactsOf(model), inputTokens: inputTokenBound(prompt, []) };
    return this.modelBudgets.withinBudgets(context, estimate, () => model.invoke(prompt), usageMetadataOf);
  }

  /** Labels and derivation edges (value → each passage) to the provenance ledger: fingerprints only. */
  private async record(content: readonly LabelledContent[], passages: readonly LabelledContent[]): Promise<void> {
    const ledger = this.options.provenance?.ledger;
    if (ledger === undefined) return;
    const now = this.clock();
    const records: ProvenanceRecord[] = content.flatMap((item) => [
      contentRecord(item, ProvenanceRecordKind.Label, now),
      ...passages
        .filter((passage) => passage.label.source.toString() === item.label.source.toString())
        .map((passage) => contentRecord(item, ProvenanceRecordKind.Derivation, now, passage)),
    ]);
    await ledger.append(records);
  }

  private failed(
    failure: QuarantineExtractionFailure,
    facts: { readonly handleFingerprint: string; readonly schemaFingerprint: string },
    held: Quarantined | undefined,
    caller: Caller,
    issues: readonly string[] = [],
  ): QuarantineExtractionError {
    this.emit(failure, facts, held, caller, null);
    return new QuarantineExtractionError(failure, facts.handleFingerprint, issues);
  }

  private emit(
    outcome: QuarantinedExtraction['outcome'],
    facts: { readonly handleFingerprint: string; readonly schemaFingerprint: string },
    held: Quarantined | undefined,
    { context, actor }: Caller,
    valueFingerprint: string | null,
  ): void {
    emitSafely(
      this.events,
      QuarantinedExtraction.event,
      new QuarantinedExtraction(
        outcome,
        facts.handleFingerprint,
        held?.handle.sources.map((source) => source.toString()) ?? [],
        [...new Set(held?.passages.map(({ label }) => label.fingerprint) ?? [])],
        facts.schemaFingerprint,
        valueFingerprint,
        actor,
        tenantFingerprintOf(context),
        this.clock(),
      ),
    );
  }

  /**
   * Whose a handle is: the actor's and the tenant's fingerprints and the action context's conversation
   * (`metadata.conversationId`, or none) (ADR 0104). Only inside an action context: outside one every caller would
   * share one owner. An actor without a stable key throws (as `actorFingerprint` does): a shared fallback would make
   * such actors one. The key is asked once: `actor`, the fingerprint `QuarantinedExtraction` carries, is of the same
   * answer, so an event is never attributed to no one, nor a key's fault swallowed as it is built (ADR 0208).
   * @throws whatever the module's `actorKey` throws itself, as it is.
   */
  private ownerOf(context: ActionContext): { readonly owner: string; readonly actor: string } {
    const key = (moduleActorKey(this.options) ?? defaultActorKey)(context.actor);
    const principal = principalKeyOf(context, () => key);
    return {
      owner: JSON.stringify([principal, conversationIdOf(context)]),
      actor: actorFingerprint(context, () => key),
    };
  }
}

/**
 * `path: code` of each failed check. A path segment is shown when it is an index or a property name the schema
 * declares; any other (a record key the quarantined model wrote) as `#<sha256 prefix>`: never the answer's text.
 */
function issuePaths(
  issues: readonly { readonly path: readonly PropertyKey[]; readonly code: string }[],
  jsonSchema: Record<string, unknown>,
): string[] {
  const named = new Set<string>();
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(collect);
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && typeof value === 'object' && value !== null)
        Object.keys(value).forEach((property) => named.add(property));
      collect(value);
    }
  };
  collect(jsonSchema);
  const shown = (segment: PropertyKey): string =>
    typeof segment === 'number' || named.has(String(segment))
      ? String(segment)
      : `#${fingerprintString(String(segment)).slice(0, 16)}`;
  return issues.map((issue) => `${issue.path.map(shown).join('.') || '(root)'}: ${issue.code}`);
}
