/** One capability as the audit lists it: its gates, its policies and the tools that reach it. */
export interface CapabilityWiring {
  readonly name: string;
  readonly action: string;
  readonly subject: string;
  /** The gates its proposals pass, in pipeline order (`validation`, `target`, `casl`, ...). */
  readonly gates: readonly string[];
  /** The named policies of those gates: `executionTarget`, `rateLimit`, `budget`, `atMostOnce`, `requiresConfirmation`, `requiresReview`, `forbidStates`. */
  readonly policies: Readonly<Record<string, string>>;
  /** Whether it declared `mutates: true`. */
  readonly mutates: boolean;
  /** Tools `VerdictTools` made for it, as `name (bound|guarded)`. */
  readonly tools: readonly string[];
}
