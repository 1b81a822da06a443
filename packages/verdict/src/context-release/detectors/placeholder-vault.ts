import { isPlainObject } from '../../shared/is-plain-object.js';
import type { DetectedSpan } from './detected-span.js';
import { DetectionInputError } from './detection-input.error.js';
import { orderedSpans } from './ordered-spans.js';

/** Anything shaped like a placeholder; the vault issues `<LABEL_n>` with a label of at most 48 characters. */
const PLACEHOLDER_SHAPE = /<[A-Z][A-Z0-9_]{0,79}>/g;
const LABEL = /^[A-Z][A-Z0-9_]{0,47}$/;

/**
 * The placeholder-shaped runs of `text`, in order: every `<LABEL_n>` the vault can issue that `text` contains is among
 * them (a shape holds no `<` or `>`, so one cannot hide inside another). Looked up, not searched for: the cost is the
 * text's length, whatever the number of placeholders issued.
 */
export function placeholderShapesIn(text: string): string[] {
  return text.includes('<') ? [...text.matchAll(new RegExp(PLACEHOLDER_SHAPE))].map(([shape]) => shape) : [];
}

/** {@link tokenizeHeld}, {@link confirmHeld} and {@link reserveLiterals}, bound to the vault's private state by its static block. */
let heldTokenize: (vault: PlaceholderVault, text: string, spans: readonly DetectedSpan[], used: Set<string>) => string;
let heldConfirm: (vault: PlaceholderVault, released: Iterable<string>) => void;
let literals: (vault: PlaceholderVault, shapes: Iterable<string>) => void;

/**
 * A release's tokenization (the context releaser's `scan` in `tokenize` mode): like `vault.tokenize`, but the
 * placeholders it issues anew are held — neither restored nor listed by `placeholdersIn`, nor counted by `size` —
 * until {@link confirmHeld} confirms those the released payload holds, once the release is permitted and recorded. A
 * release that is denied or fails confirms nothing: the vault never restores a value that was never released. Every
 * placeholder the text uses is added to `used`. `used` is one field's: tokenizing the field's text again (a further
 * scanning pass) keeps the placeholders of `used` in it as issued, where other placeholder-shaped text is the input's.
 * A vault that is not a `PlaceholderVault` itself (an application's wrapper with `tokenize` and `restore`) tokenizes
 * through its own `tokenize`, as it always did.
 */
export function tokenizeHeld(
  vault: PlaceholderVault,
  text: string,
  spans: readonly DetectedSpan[],
  used: Set<string>,
): string {
  return heldTokenize(vault, text, spans, used);
}

/**
 * Confirms `released`, placeholders {@link tokenizeHeld} issued that the permitted and recorded release holds where
 * scanning wrote them: they restore from now on. The caller decides which; one it leaves out (a transformer dropped it)
 * stays held: its value never left.
 */
export function confirmHeld(vault: PlaceholderVault, released: Iterable<string>): void {
  heldConfirm(vault, released);
}

/**
 * Placeholder-shaped text a permitted release carries where its scanning did not write it (a key, an unscanned field,
 * a scanned field in which nothing was found): the input's literal text, as `tokenize` treats it. A placeholder still
 * held is given up by its value, which takes a new one when it is released; one never issued is reserved, never to be
 * issued. A placeholder already given out keeps standing for its value.
 */
export function reserveLiterals(vault: PlaceholderVault, shapes: Iterable<string>): void {
  literals(vault, shapes);
}

/**
 * Server-side map between detected values and the placeholders that replace them, e.g. `ada@example.org` ⇄ `<EMAIL_1>`.
 * Use one vault per conversation or run and never send it anywhere: it holds the values in memory and grows with each
 * distinct value.
 *
 * The same value under the same label always gets the same placeholder; numbering counts per label from 1 and is stable
 * across calls. Placeholder-shaped text already present in the input (`<EMAIL_1>` typed by a user) is never issued, so
 * `restore(tokenize(text, spans))` gives `text` back, unless `text` contains placeholders this vault issued earlier:
 * those already stand for their values and restore to them.
 *
 * @example
 * const vault = new PlaceholderVault();
 * const text = 'Write to ada@example.org';
 * const safe = vault.tokenize(text, detect(text, DEFAULT_DETECTORS)); // 'Write to <EMAIL_1>'
 * vault.restore({ to: '<EMAIL_1>' }); // { to: 'ada@example.org' }
 */
export class PlaceholderVault {
  readonly #placeholders = new Map<string, Map<string, string>>(); // label → value → placeholder
  readonly #values = new Map<string, string>(); // placeholder → value
  readonly #lastNumber = new Map<string, number>(); // label → highest number issued
  readonly #reserved = new Set<string>(); // placeholder-shaped input text this vault did not issue
  readonly #held = new Set<string>(); // issued by a release not (yet) permitted and recorded: never restored

  static {
    heldTokenize = (vault, text, spans, used) =>
      #held in vault
        ? vault.#tokenize(text, spans, used)
        : (vault as Pick<PlaceholderVault, 'tokenize'>).tokenize(text, spans);
    heldConfirm = (vault, released) => {
      if (!(#held in vault)) return;
      for (const placeholder of released) vault.#held.delete(placeholder);
    };
    literals = (vault, shapes) => {
      if (!(#held in vault)) return;
      for (const shape of shapes) vault.#literal(shape);
    };
  }

  /** Number of placeholders issued (distinct label and value pairs); those of a release still undecided or refused are not counted. */
  get size(): number {
    return this.#values.size - this.#held.size;
  }

  /**
   * `text` with each span replaced by the placeholder for its value, `<LABEL_n>`. Spans may come in any order, must lie
   * inside the text and must not overlap (use `detect`); their labels must be `A–Z`, `0–9`, `_`, starting with a letter.
   *
   * @throws DetectionInputError for bad spans or labels; the vault is left unchanged.
   */
  tokenize(text: string, spans: readonly DetectedSpan[]): string {
    return this.#tokenize(text, spans);
  }

  /** {@link tokenize}; with `held`, new placeholders are held and every placeholder used is added to it. */
  #tokenize(text: string, spans: readonly DetectedSpan[], held?: Set<string>): string {
    const ordered = orderedSpans(text, spans, 'PlaceholderVault.tokenize()');
    for (const span of ordered) {
      if (typeof span.label !== 'string' || !LABEL.test(span.label)) {
        throw new DetectionInputError(
          `PlaceholderVault.tokenize(): a span from detector ${String(span.detector)} has a label that cannot form a placeholder (A-Z, 0-9, _, starting with a letter, at most 48 characters)`,
        );
      }
    }
    for (const [shape] of text.matchAll(new RegExp(PLACEHOLDER_SHAPE))) {
      // This field's own placeholders, from an earlier scanning pass, stand for their values.
      if (!held?.has(shape)) this.#literal(shape);
    }
    let tokenized = '';
    let at = 0;
    for (const span of ordered) {
      tokenized +=
        text.slice(at, span.start) + this.#placeholderFor(span.label, text.slice(span.start, span.end), held);
      at = span.end;
    }
    return tokenized + text.slice(at);
  }

  /**
   * A deep copy of the JSON `value` in which every placeholder this vault issued, inside any string value, is replaced
   * by its original value. It restores everywhere: tool arguments restore through the model-input guard, which
   * restores only in the arguments a tool declared. Object keys, unknown or altered placeholders
   * (`<EMAIL_9>`, `<email_1>`) and all other text are left exactly as they are; `value` itself is never mutated.
   *
   * @throws DetectionInputError when `value` is not plain JSON (a Date, Map, class instance, function, `undefined`, a
   * sparse array or a cycle).
   * @example vault.restore({ recipients: ['<EMAIL_1>'], note: 'cc <EMAIL_9>' }) // { recipients: ['ada@example.org'], note: 'cc <EMAIL_9>' }
   */
  restore<T>(value: T): T {
    return this.#restoreValue(value, new Set()) as T;
  }

  /**
   * The placeholders this vault issued that occur in `text`, in order of appearance; placeholder-shaped text it
   * never issued (`<EMAIL_9>`, a user's literal `<EMAIL_1>` it reserved) is not listed. The model-input guard
   * uses it to refuse placeholders outside the arguments a tool declared.
   *
   * @example vault.placeholdersIn('to <EMAIL_1>, cc <EMAIL_9>') // ['<EMAIL_1>']
   */
  placeholdersIn(text: string): string[] {
    return [...text.matchAll(new RegExp(PLACEHOLDER_SHAPE))]
      .map(([shape]) => shape)
      .filter((shape) => this.#issued(shape));
  }

  /**
   * Input that spells `shape` is literal text: a placeholder still held (issued by a release never given out) is given
   * up by its value, which takes a new one when it is released; one never issued is reserved.
   */
  #literal(shape: string): void {
    if (this.#held.has(shape)) this.#forget(shape);
    if (!this.#values.has(shape)) this.#reserved.add(shape);
  }

  /** Drops a held placeholder and its value: neither was ever given out. */
  #forget(placeholder: string): void {
    const value = this.#values.get(placeholder)!;
    const label = placeholder.slice(1, placeholder.lastIndexOf('_'));
    this.#placeholders.get(label)?.delete(value);
    this.#values.delete(placeholder);
    this.#held.delete(placeholder);
  }

  /** Whether this vault issued `shape` and a release (or `tokenize`) gave it out. */
  #issued(shape: string): boolean {
    return this.#values.has(shape) && !this.#held.has(shape);
  }

  /** The placeholder of `value` under `label`, issued if new; with `used`, a new one is held and each is added to it. */
  #placeholderFor(label: string, value: string, used?: Set<string>): string {
    let byValue = this.#placeholders.get(label);
    if (byValue === undefined) {
      byValue = new Map();
      this.#placeholders.set(label, byValue);
    }
    const known = byValue.get(value);
    if (known !== undefined) {
      if (used === undefined) this.#held.delete(known);
      else used.add(known);
      return known;
    }
    let number = this.#lastNumber.get(label) ?? 0;
    let placeholder: string;
    do {
      number += 1;
      placeholder = `<${label}_${number}>`;
    } while (this.#reserved.has(placeholder));
    this.#lastNumber.set(label, number);
    byValue.set(value, placeholder);
    this.#values.set(placeholder, value);
    if (used !== undefined) {
      this.#held.add(placeholder);
      used.add(placeholder);
    }
    return placeholder;
  }

  #restoreValue(value: unknown, ancestors: Set<object>): unknown {
    if (typeof value === 'string')
      return value.replace(new RegExp(PLACEHOLDER_SHAPE), (shape) =>
        this.#issued(shape) ? this.#values.get(shape)! : shape,
      );
    if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
    if (!Array.isArray(value) && !isPlainObject(value)) {
      throw new DetectionInputError(
        `PlaceholderVault.restore() accepts plain JSON values, found ${value === undefined ? 'undefined' : typeof value === 'object' ? 'a non-plain object' : `a ${typeof value}`}`,
      );
    }
    if (ancestors.has(value))
      throw new DetectionInputError('PlaceholderVault.restore() accepts plain JSON values, found a cyclic reference');
    ancestors.add(value);
    // Array.from visits holes as `undefined`, so a sparse array is refused rather than copied with holes.
    const copy = Array.isArray(value)
      ? Array.from(value, (item: unknown) => this.#restoreValue(item, ancestors))
      : Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.#restoreValue(item, ancestors)]));
    ancestors.delete(value);
    return copy;
  }
}
