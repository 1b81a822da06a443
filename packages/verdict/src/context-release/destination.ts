import { releaseIdentifier } from './release-identifier.js';

/**
 * Where released data goes: a resolved connection in a trust zone. A provider name is not a trust
 * boundary: the same connection name in another zone is another destination, with its own route.
 *
 * @example
 * Destination.connection('ollama-local', 'local-machine'); Destination.connection('ollama-gpu', 'partner-cloud');
 */
export class Destination {
  private constructor(
    readonly connection: string,
    readonly trustZone: string,
  ) {
    Object.freeze(this);
  }

  /** @throws InvalidReleaseIdentifierError when either name is not an identifier (`[A-Za-z0-9._-]`). */
  static connection(connection: string, trustZone: string): Destination {
    return new Destination(
      releaseIdentifier(connection, 'destination connection'),
      releaseIdentifier(trustZone, 'destination trust zone'),
    );
  }

  /** `connection@trustZone`, e.g. `ollama-local@local-machine`. */
  toString(): string {
    return `${this.connection}@${this.trustZone}`;
  }
}
