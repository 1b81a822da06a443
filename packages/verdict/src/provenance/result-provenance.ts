import type { Source } from '../context-release/source.js';
import type { Trust } from '../context-release/trust.js';
import type { ProvenanceSource } from './provenance-source.js';

/** The provenance of (part of) a tool result: its trust and, optionally, a source other than the tool. */
export interface ResultLabel {
  readonly trust: Trust;
  /** Default: the capability's tool, `tool:<capability>`. */
  readonly source?: Source | ProvenanceSource;
}

/**
 * The label of the leaves under one path of a result, optionally only where a predicate over their row holds
 * (labels by value): the row is the nearest object that holds the leaf (the transaction, for
 * `transactions.*.subject`). Where `when` answers `false`, the leaf takes the next less specific path's label,
 * else the whole result's. A `when` that throws is an application fault: it propagates.
 *
 * @example
 * { trust: Trust.Untrusted, source: Source.external('bank'), when: (row) => row.incoming === true }
 */
export interface ResultPathLabel extends ResultLabel {
  /** Default: the label applies to every leaf under the path. */
  readonly when?: (row: Readonly<Record<string, unknown>>) => boolean;
}

/** How a capability's result text is parsed for per-path labels. */
export const ResultFormat = {
  Json: 'json',
  /** YAML 1.2 (the `yaml` package), a superset of JSON. */
  Yaml: 'yaml',
} as const;

export type ResultFormat = (typeof ResultFormat)[keyof typeof ResultFormat];

/**
 * What a capability's results are, whole or per path (dot paths with `*`, a path covering its subtree): a
 * product's `price` is application data, its `reviews.*.text` third-party text. Paths not covered take the
 * whole result's label. A result that does not parse in its `format` (or is not an object or array) cannot be
 * labelled per path, and is untrusted as a whole. A bound tool without a declaration returns untrusted results.
 *
 * @example
 * results: { trust: Trust.Trusted, format: 'json', paths: { 'reviews.*.text': { trust: Trust.Untrusted, source: Source.external('reviews') } } }
 */
export interface ResultProvenance extends ResultLabel {
  readonly paths?: Readonly<Record<string, ResultPathLabel>>;
  /**
   * The format per-path labels parse the result text in. Default: `'json'` (an executor's object output is
   * answered as JSON); `verdict validate` reports per-path labels that do not declare it.
   */
  readonly format?: ResultFormat;
}

/** Whether `value` is a {@link ResultFormat}. */
export function isResultFormat(value: unknown): value is ResultFormat {
  return (Object.values(ResultFormat) as unknown[]).includes(value);
}
