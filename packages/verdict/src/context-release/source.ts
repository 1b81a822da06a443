import { releaseIdentifier } from './release-identifier.js';

/** Where released data comes from: the application itself, the end user, or an external system. */
export const SourceKind = {
  Application: 'application',
  User: 'user',
  External: 'external',
} as const;

export type SourceKind = (typeof SourceKind)[keyof typeof SourceKind];

/**
 * A labelled origin of released data. Origin is not trust and not sensitivity: say those separately with
 * `trust()` and `classify()`. The name is an application-chosen identifier (`[A-Za-z0-9._-]`).
 *
 * @example
 * Source.application('customer-profile'); Source.external('carrier-api'); Source.user('support-chat');
 */
export class Source {
  private constructor(
    readonly kind: SourceKind,
    readonly name: string,
  ) {
    Object.freeze(this);
  }

  /** Data the application owns (a customer record, an order). @throws InvalidReleaseIdentifierError */
  static application(name: string): Source {
    return new Source(SourceKind.Application, releaseIdentifier(name, 'source name'));
  }

  /** Data the end user typed or uploaded. @throws InvalidReleaseIdentifierError */
  static user(name: string): Source {
    return new Source(SourceKind.User, releaseIdentifier(name, 'source name'));
  }

  /** Data from a system outside the application (an API response, a retrieved document, a tool result). @throws InvalidReleaseIdentifierError */
  static external(name: string): Source {
    return new Source(SourceKind.External, releaseIdentifier(name, 'source name'));
  }

  /** `kind:name`, e.g. `application:customer-profile`. */
  toString(): string {
    return `${this.kind}:${this.name}`;
  }
}
