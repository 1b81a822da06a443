import { type Source, SourceKind } from '../context-release/source.js';
import { releaseIdentifier } from '../context-release/release-identifier.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';

/** What `releaseIdentifier` accepts. */
const IDENTIFIER = /^[A-Za-z0-9._-]{1,128}$/;

/** Where a content item in an agent's context came from. */
export const ProvenanceSourceKind = {
  /** The application's own text and data: the system prompt, a released record. */
  Application: 'application',
  /** What the principal (the end user) typed. */
  User: 'user',
  /** The result of a tool (a capability's bound tool, or any other tool). */
  Tool: 'tool',
  /** A document from a retrieval index. */
  Retrieval: 'retrieval',
  /** An agent's memory store. */
  Memory: 'memory',
  /** A tool result served by an MCP server. */
  Mcp: 'mcp',
  /** A model's answer: another agent's, or this one's. */
  Agent: 'agent',
  /** A system outside the application (context release's `Source.external`). */
  External: 'external',
  /** Content whose origin Verdict did not observe (no context window was recorded). */
  Unobserved: 'unobserved',
} as const;

export type ProvenanceSourceKind = (typeof ProvenanceSourceKind)[keyof typeof ProvenanceSourceKind];

/**
 * The origin of a content item an agent saw: kind and an application-chosen name (`[A-Za-z0-9._-]`). Origin
 * is not trust: a label says both (see `ProvenanceLabel`). Context release's {@link Source} converts with
 * {@link ProvenanceSource.of}.
 *
 * @example
 * ProvenanceSource.tool('products.view'); ProvenanceSource.retrieval('help-center'); ProvenanceSource.mcp('files');
 */
export class ProvenanceSource {
  private constructor(
    readonly kind: ProvenanceSourceKind,
    readonly name: string,
  ) {
    Object.freeze(this);
  }

  /** @throws InvalidReleaseIdentifierError for a name outside `[A-Za-z0-9._-]`, 1 to 128 characters. */
  static create(kind: ProvenanceSourceKind, name: string): ProvenanceSource {
    return new ProvenanceSource(kind, releaseIdentifier(name, 'provenance source name'));
  }

  /**
   * A source named by a name Verdict did not choose (a tool's or capability's name): the name itself when it is
   * an identifier, else `sha256-` and the first 16 hex digits of its fingerprint, so that labelling never fails.
   */
  static named(kind: ProvenanceSourceKind, name: string): ProvenanceSource {
    return IDENTIFIER.test(name) ? new ProvenanceSource(kind, name) : ProvenanceSource.fingerprinted(kind, name);
  }

  /**
   * A source named by text the model wrote (a tool name no tool has): `sha256-` and the first 16 hex digits of its
   * fingerprint, whatever the name, so that the text reaches no label, record or event.
   */
  static fingerprinted(kind: ProvenanceSourceKind, name: string): ProvenanceSource {
    return new ProvenanceSource(kind, `sha256-${fingerprintString(name).slice(0, 16)}`);
  }

  static application(name: string): ProvenanceSource {
    return ProvenanceSource.create(ProvenanceSourceKind.Application, name);
  }

  static user(name: string): ProvenanceSource {
    return ProvenanceSource.create(ProvenanceSourceKind.User, name);
  }

  static tool(name: string): ProvenanceSource {
    return ProvenanceSource.create(ProvenanceSourceKind.Tool, name);
  }

  static retrieval(index: string): ProvenanceSource {
    return ProvenanceSource.create(ProvenanceSourceKind.Retrieval, index);
  }

  static memory(name: string): ProvenanceSource {
    return ProvenanceSource.create(ProvenanceSourceKind.Memory, name);
  }

  static mcp(server: string): ProvenanceSource {
    return ProvenanceSource.create(ProvenanceSourceKind.Mcp, server);
  }

  static agent(name: string): ProvenanceSource {
    return ProvenanceSource.create(ProvenanceSourceKind.Agent, name);
  }

  /** Context release's source as a provenance source (`application`, `user`, `external`). */
  static of(source: Source | ProvenanceSource): ProvenanceSource {
    if (source instanceof ProvenanceSource) return source;
    const kind =
      source.kind === SourceKind.Application
        ? ProvenanceSourceKind.Application
        : source.kind === SourceKind.User
          ? ProvenanceSourceKind.User
          : ProvenanceSourceKind.External;
    return ProvenanceSource.create(kind, source.name);
  }

  /** `kind:name`, e.g. `tool:products.view`. */
  toString(): string {
    return `${this.kind}:${this.name}`;
  }
}

/** The source of content in a window Verdict did not observe. */
export const UNOBSERVED_SOURCE = ProvenanceSource.create(ProvenanceSourceKind.Unobserved, 'context');

/**
 * The source of a value found in the taint ledger: written by a call proposed under untrusted influence, it
 * came back through a result (`InfluenceOptions.tainted`).
 */
export const TAINT_LEDGER_SOURCE = ProvenanceSource.create(ProvenanceSourceKind.Memory, 'taint-ledger');

/**
 * The source of a result answered under a tool's name: `tool:<name>` when the call reached a tool the application
 * has, else `tool:sha256-…`, for that name is text the model wrote (ADR 0145).
 */
export function calledToolSource(name: string, reached: boolean): ProvenanceSource {
  return reached
    ? ProvenanceSource.named(ProvenanceSourceKind.Tool, name)
    : ProvenanceSource.fingerprinted(ProvenanceSourceKind.Tool, name);
}
