/**
 * A normalized side effect, as a trajectory fold sees it: a verb plus the optional object it acted on and where the
 * result went. Values are matched against transition `when` globs after trimming surrounding whitespace; a blank
 * `resource` or `destination` counts as absent.
 *
 * @example { effect: 'upload', resource: 'exports/customers-q3.csv', destination: 'external:files.example.net/drop' }
 */
export interface Effect {
  readonly effect: string;
  readonly resource?: string | null;
  readonly destination?: string | null;
}
