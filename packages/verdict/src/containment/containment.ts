import type { ContainmentScope } from './containment-scope.js';

/** Which kill switch: the scope and its subject. */
export interface ContainmentKey {
  readonly scope: ContainmentScope;
  /**
   * The capability name for `capability`; `sha256(key)` (hex) of the actor's key (module option
   * `actorKey`) or of the tenant id for `actor` and `tenant`. The store never sees a raw actor key or
   * tenant id.
   */
  readonly subject: string;
}

/** An engaged kill switch, as a {@link ContainmentStore} keeps it until it is released. */
export interface Containment extends ContainmentKey {
  /** Why, as the operator or the rule wrote it: trusted text, recorded in evidence too. Never put PII here. */
  readonly reason: string;
  /** The operator's opaque id (`operator:7`) or `rule:<name>`. */
  readonly engagedBy: string;
  /** Who ran the command, from the CLI's operator-identity hook; `null` for a rule. */
  readonly operatorIdentity: string | null;
  /** UTC. */
  readonly engagedAt: Date;
}
