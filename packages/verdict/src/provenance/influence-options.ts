/**
 * What influence analysis is told besides the window and the arguments.
 *
 * @example analyzeInfluence(window, args, { tainted: new Set(['de89370400440532013000']) })
 */
export interface InfluenceOptions {
  /**
   * Candidate `needle`s found in the taint ledger: values that an earlier call proposed under untrusted
   * influence wrote somewhere. A tainted value counts as influenced and is never derived from trusted content,
   * even where trusted content or the trusted set holds it (it came back through a trusted result). Default: none.
   */
  readonly tainted?: ReadonlySet<string>;
  /**
   * The application-declared trusted set (the policy's `trustedValues`, resolved): values compared in canonical
   * form, as trusted content. Default: none.
   */
  readonly trustedValues?: Iterable<string | number>;
  /**
   * The proposal is the application's own request (`VerdictService.execute` with no window): its values count as
   * derived from trusted content. Default: `false`.
   */
  readonly ownRequest?: boolean;
}
