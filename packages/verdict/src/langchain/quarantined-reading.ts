import { ToolMessage } from '@langchain/core/messages';
import type { CapabilityRegistry } from '../capabilities/capability-registry.js';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { createMiddleware } from 'langchain';
import type { ZodType } from 'zod';
import { Trust } from '../context-release/trust.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { UnreleasedContextError } from '../errors/unreleased-context.error.js';
import { labelContent } from '../provenance/labelled-content.js';
import type { ProvenanceLabels } from '../provenance/provenance-labels.js';
import { calledToolSource } from '../provenance/provenance-source.js';
import { readOwnRefusal } from '../public-answer.js';
import { assertJsonOutputSchema } from '../quarantine/json-output.js';
import type { QuarantineService } from '../quarantine/quarantine.service.js';
import { contentKind, textOf } from './message-text.js';
import { QUARANTINE_SOURCE, quarantineExtractTool } from './quarantine-extract-tool.js';
import { isOwnLabelledTool, rememberOwnText } from './own-labelled-tool.js';
import { isOwnArgumentsRejected, toolErrorMessageOf } from './tool-error-message.js';

/** Where a result quarantined reading cannot hold would have gone. */
const DECIDING_MODEL = 'the deciding model (quarantined reading)';
const COMMAND_REMEDY =
  'Quarantined reading holds text: a tool whose results are quarantined answers a ToolMessage, never a Command.';
const NON_TEXT_REMEDY =
  'Quarantined reading holds text: the quarantined model cannot read an image or a file. Answer text, or give this tool to an agent without quarantined reading.';
const UNREAD_REMEDY =
  "Quarantined reading holds a result's text: a result without text whose parts hold other fields (an id, a nested object) is neither quarantined nor shown. Answer its content as text.";
const TOOL_ERROR_REMEDY =
  "Quarantined reading shows the deciding model no tool's error but its own arguments failing the tool's schema: the tool's error is this error's cause. Catch it in the tool and answer text, which is quarantined.";

/** Options of {@link QuarantinedReading}. */
export interface QuarantinedReadingOptions {
  /**
   * The schemas the deciding model may ask values for, by name (the extract tool's `schema` argument). Each must
   * output plain JSON: a schema whose output type is not (`z.coerce.bigint()`, `z.date()`) is a
   * `VerdictConfigurationError` here.
   * @example schemas: { bill: z.object({ iban: z.string(), amount: z.number().positive() }) }
   */
  readonly schemas: Readonly<Record<string, ZodType>>;
  /** The extract tool's name. Default `'quarantine_extract'`. */
  readonly toolName?: string;
}

/**
 * Quarantined reading for one `createAgent` agent (docs/quarantine.md): every tool result that carries untrusted
 * content — as the provenance tracker labelled it — reaches the model as a handle instead of its text, and the
 * agent gets an extract tool that asks the module's quarantined model for a schema-typed value. Place its
 * middleware before the tracker's (it reads the labels the tracker gives the result) and, with the model-input
 * guard, after the guard's, which must release its handles: `[plan, guard, reading, tracker, budget]`
 * (docs/context-release.md §6).
 *
 * @example
 * const reading = readers.forAgent({ schemas: { bill: z.object({ iban: z.string(), amount: z.number() }) } });
 * const agent = createAgent({ model, tools, middleware: [reading.middleware(), tracker.middleware()] });
 */
export class QuarantinedReading {
  /** The extract tool (the middleware offers it to the agent). */
  readonly tool: StructuredToolInterface;

  constructor(
    private readonly quarantine: QuarantineService,
    private readonly labels: ProvenanceLabels,
    options: QuarantinedReadingOptions,
    /**
     * Tells Verdict's own refusals (from a tool Verdict made for that capability, with the public message), which
     * pass as they are; without it, every result is quarantined.
     */
    private readonly own?: { readonly registry: CapabilityRegistry; readonly publicMessage: string },
  ) {
    if (Object.keys(options.schemas).length === 0)
      throw new VerdictConfigurationError('Quarantined reading needs at least one schema to extract.');
    // A schema whose output is not plain JSON (a bigint, a Date) could never answer the deciding model: named now.
    for (const [name, schema] of Object.entries(options.schemas)) assertJsonOutputSchema(schema, `"${name}"`);
    this.tool = quarantineExtractTool(quarantine, labels, options.schemas, options.toolName ?? 'quarantine_extract');
  }

  /**
   * The agent middleware: swaps untrusted tool results for handles and offers the extract tool. A tool's error that
   * LangChain would answer the deciding model with — other than the model's own arguments failing the tool's
   * schema — ends the run with an `UnreleasedContextError`, the tool's error its cause (ADR 0153).
   */
  middleware() {
    return createMiddleware({
      name: 'VerdictQuarantinedReading',
      tools: [this.tool],
      wrapToolCall: async (request, handler) => {
        let result: Awaited<ReturnType<typeof handler>>;
        try {
          result = await handler(request);
        } catch (error) {
          throw errorPassedOn(error, request.toolCall);
        }
        if (isOwnLabelledTool(request.tool)) return result;
        const called = request.toolCall.name;
        // A Command puts whatever messages it holds into the state: the tool's output, untrusted, and no handle
        // can stand for it. It never reaches the deciding model.
        if (!ToolMessage.isInstance(result))
          throw new UnreleasedContextError(`A Command returned by tool "${called}"`, DECIDING_MODEL, COMMAND_REMEDY);
        const text = textOf(result);
        const kind = contentKind(result);
        // Verdict's own fixed answer for a call it did not execute holds nothing to quarantine — only from a tool
        // Verdict made: any other tool's text shaped like one (a file, a web page) is quarantined like the rest.
        if (kind === 'empty' || this.isVerdictRefusal(request.tool, text)) return result;
        // The quarantined model reads text only: a part it cannot read (an image, a file) may not be swapped for a
        // handle that does not hold it, nor reach the deciding model as it is — whatever labels its text has.
        if (kind === 'other')
          throw new UnreleasedContextError(
            `A result with a part that is not text from tool "${called}"`,
            DECIDING_MODEL,
            NON_TEXT_REMEDY,
          );
        // No text, yet the content holds something (a part's id, a field beside an empty text): no handle could
        // stand for what the quarantined model cannot read, and it may not reach the deciding model as it is.
        if (text === '')
          throw new UnreleasedContextError(
            `A result without text from tool "${called}"`,
            DECIDING_MODEL,
            UNREAD_REMEDY,
          );
        // Under the name the model called only when the call reached a tool: an invented name is the model's text.
        const source = calledToolSource(called, request.tool !== undefined);
        const items = this.labels.recall(text) ?? [labelContent(text, source, Trust.Untrusted)];
        if (!items.some((item) => item.label.trust === Trust.Untrusted)) return result;
        const handle = this.quarantine.quarantineContent(text, items);
        const shown = rememberOwnText(
          this.labels,
          QUARANTINE_SOURCE,
          JSON.stringify({
            quarantined: handle.id,
            sources: handle.sources.map((source) => source.toString()),
            read_with: this.tool.name,
          }),
        );
        return new ToolMessage({
          content: shown,
          tool_call_id: result.tool_call_id,
          name: result.name,
          status: result.status,
          id: result.id,
        });
      },
    });
  }

  private isVerdictRefusal(tool: unknown, text: string): boolean {
    if (this.own === undefined || typeof tool !== 'object' || tool === null) return false;
    const binding = this.own.registry.bindingOf(tool);
    const answer = readOwnRefusal(text, this.own.publicMessage);
    return binding !== undefined && answer !== null && answer.capability === binding.capability;
  }
}

/**
 * What the middleware throws for an error of a tool call. LangChain answers the deciding model with the text of a
 * tool's `ToolInvocationError` (the call's arguments, the stack of what the tool threw: a nested call's input,
 * untrusted): only the model's own arguments failing the tool's schema are its own text, and pass. Any other such
 * error becomes an `UnreleasedContextError` whose cause it is, which LangChain does not unwrap: the run ends. Every
 * other error passes as it is (LangChain rethrows it).
 */
function errorPassedOn(error: unknown, call: { readonly name: string; readonly args: unknown }): unknown {
  const shown = toolErrorMessageOf(error);
  if (shown === undefined || isOwnArgumentsRejected(shown, call)) return error;
  const refused = new UnreleasedContextError(`The error of tool "${call.name}"`, DECIDING_MODEL, TOOL_ERROR_REMEDY);
  // As `new Error(message, { cause })` sets it: the application logs the tool's error from there.
  return Object.defineProperty(refused, 'cause', { value: error, writable: true, configurable: true });
}
