import type { ContextReleaser } from '../context-release/context-releaser.js';
import { Destination } from '../context-release/destination.js';
import { planRelease } from '../context-release/release-plan.js';
import type { ReleaseRequest } from '../context-release/release-request.js';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { UnreleasedContextError } from '../errors/unreleased-context.error.js';
import { VerdictError } from '../errors/verdict.error.js';
import { type NotExecutedAnswer, publicAnswer, readNotExecutedMessage } from '../public-answer.js';
import { isPlainObject } from '../shared/is-plain-object.js';

/** How one tool's results are released: everything of a release request but the payload and destination. */
export type ToolResultRoute = Omit<ReleaseRequest, 'payload' | 'destination'>;

/** What a {@link ToolResultRelease} needs: the model-input guard's options of every runtime. */
export interface ToolResultReleaseOptions {
  readonly releaser: Pick<ContextReleaser, 'requireRelease'>;
  /** The one connection and trust zone this agent's model runs in. */
  readonly destination: Destination;
  /** The release route of each tool's results, by tool name. A tool without one cannot answer the model. */
  readonly toolResults: Readonly<Record<string, ToolResultRoute>>;
  /**
   * Verdict's fixed public message: a tool's `not_executed` answer carrying it passes unreleased (it holds no
   * data), re-serialized by `publicAnswer` — never as the tool's own text.
   */
  readonly publicMessage: string;
  /**
   * Whether a `not_executed` answer names a registered capability (`ModelInputGuards` asks the registry); from a
   * bound or guarded tool it must name that tool's own capability. Without it no `not_executed` answer passes
   * unreleased: route those tools too.
   */
  readonly isCapability?: (name: string) => boolean;
}

/**
 * What the model may read of a tool's result, for the model-input guard of every runtime (ADR 0011): the
 * result released through its tool's route, or Verdict's own `not_executed` answer re-serialized — never the
 * text the tool returned as it is (duplicate keys, escapes and padding would survive).
 */
export class ToolResultRelease {
  /**
   * @throws VerdictConfigurationError for a `destination` that is not a `Destination`, or a `toolResults` route
   *   that is not a well-formed release (labels, `only`, `redact`, `scan`, transformers), naming the tool: a wiring
   *   mistake found when the guard is built, not at the tool's first result.
   */
  constructor(private readonly options: ToolResultReleaseOptions) {
    const { destination, toolResults } = options;
    if (!(destination instanceof Destination))
      throw new VerdictConfigurationError(
        'A model-input guard needs a destination built with Destination.connection(name, trustZone).',
      );
    if (!isPlainObject(toolResults))
      throw new VerdictConfigurationError('A model-input guard needs toolResults: a release route by tool name.');
    for (const [name, route] of Object.entries(toolResults)) assertRoute(name, route, destination);
  }

  /**
   * The text the model reads for tool `name`'s result `text` (`null`: not text). `capability`: the one a bound or
   * guarded tool runs, whose own `not_executed` answer alone passes unreleased (`undefined` for other tools).
   *
   * @throws UnreleasedContextError for a tool without a route, or a result that is not text.
   * @throws ContextReleaseRefusedError when the route refuses the release.
   */
  async release(text: string | null, name: string, capability: string | undefined): Promise<string> {
    const answer = text === null ? null : this.notExecutedAnswer(text, capability);
    if (answer !== null) {
      const decision = Decision.of(answer.decision, Stage.Proposal, 'not_executed');
      return publicAnswer(
        { executed: false, capability: answer.capability, correlationId: '', decision },
        this.options.publicMessage,
      );
    }
    const { toolResults, destination } = this.options;
    const route = Object.hasOwn(toolResults, name) ? toolResults[name] : undefined;
    if (route === undefined || text === null)
      throw new UnreleasedContextError(`The result of tool "${name}"`, destination.toString());
    const released = await this.options.releaser.requireRelease({ ...route, payload: payloadOf(text), destination });
    return released.json;
  }

  /**
   * Verdict's own refusal: its exact shape, the fixed public message and a registered capability — the called
   * tool's own when it is bound or guarded — else `null`.
   */
  private notExecutedAnswer(text: string, bound: string | undefined): NotExecutedAnswer | null {
    const answer = readNotExecutedMessage(text);
    if (answer === null || answer.message !== this.options.publicMessage) return null;
    if (bound !== undefined && answer.capability !== bound) return null;
    return (this.options.isCapability?.(answer.capability) ?? false) ? answer : null;
  }
}

/**
 * Checks one route as the releaser will, with an empty payload: the same rules as every release (`planRelease`).
 * Whether a policy is registered for the route is not checked: the module registers routes at boot, possibly after
 * the guard is built.
 */
function assertRoute(name: string, route: ToolResultRoute, destination: Destination): void {
  try {
    planRelease({ ...route, payload: {}, destination });
  } catch (error) {
    if (!(error instanceof VerdictError)) throw error;
    throw new VerdictConfigurationError(
      `toolResults route of tool "${name}": ${error.message}`,
      { tool: name },
      { cause: error },
    );
  }
}

/** A tool result as a release payload: its JSON object, or `{ result }` for any other JSON value or plain text. */
function payloadOf(text: string): Record<string, unknown> {
  const parsed = parseJson(text);
  return isPlainObject(parsed) ? (parsed as Record<string, unknown>) : { result: parsed === undefined ? text : parsed };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
