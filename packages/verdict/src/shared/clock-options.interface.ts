/** The clock option every mechanism that stamps time reads (a slice of the module options). */
export interface ClockOptions {
  /** The clock used for envelopes, evidence, windows and claims. Default: `() => new Date()`. */
  readonly clock?: () => Date;
}
