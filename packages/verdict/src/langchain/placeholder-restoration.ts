import { type ReleasePath, WILDCARD, parseReleasePath } from '../context-release/release-path.js';
import type { PlaceholderVault } from '../context-release/detectors/placeholder-vault.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { isPlainObject } from '../shared/is-plain-object.js';

/**
 * One tool argument that may receive the real values behind vault placeholders: a dot path (`to`,
 * `recipients.*`, `message.body`; `*` matches any array index or key) naming a string argument.
 * By default only a whole value restores (`'<EMAIL_1>'`); `embedded: true` also restores placeholders
 * inside the string (`'Hi <EMAIL_1>, ...'`) — declare it only for free text the tool treats as text.
 * `labels` restricts the placeholders that restore there (`['EMAIL']`: a `<PHONE_1>` refuses the call).
 *
 * Restoration is scoped by tool, argument and label, not by the call's other arguments: with `body`
 * embedded, the model can still pick any literal recipient and the real value goes to it. The capability
 * must check the recipient (CASL conditions, `forbidStates`); restore into a recipient argument, not a body,
 * where you can.
 *
 * @example
 * restore: { send_note: [{ path: 'to', labels: ['EMAIL'] }, 'cc.*'] }
 */
export type PlaceholderRestoration =
  string | { readonly path: string; readonly embedded?: boolean; readonly labels?: readonly string[] };

/** Why a tool call's placeholders were refused (the internal reason of the recorded decision). */
export const RestorationRefusal = {
  /** A vault placeholder in an argument the tool did not declare. */
  OutsideDeclaredPath: 'placeholder_outside_declared_path',
  /** A vault placeholder inside a declared argument that restores whole values only. */
  NotWholeValue: 'placeholder_not_whole_value',
  /** A vault placeholder whose label (`EMAIL` of `<EMAIL_1>`) the declared argument does not name. */
  LabelNotDeclared: 'placeholder_label_not_declared',
} as const;

export type RestorationRefusal = (typeof RestorationRefusal)[keyof typeof RestorationRefusal];

/** What restoring one tool call's arguments came to. */
export type RestorationOutcome =
  | { readonly kind: 'untouched' }
  | { readonly kind: 'restored'; readonly args: unknown }
  | { readonly kind: 'refused'; readonly reason: RestorationRefusal };

interface DeclaredPath {
  readonly path: ReleasePath;
  readonly embedded: boolean;
  /** The placeholder labels that restore here; `undefined`: any. */
  readonly labels: ReadonlySet<string> | undefined;
}

const LABEL = /^[A-Z][A-Z0-9_]{0,47}$/;
/** The label of a placeholder the vault issued: `EMAIL` of `<EMAIL_1>`, `CARD_NUMBER` of `<CARD_NUMBER_2>`. */
const PLACEHOLDER_LABEL = /^<(.+)_\d+>$/;

/**
 * The placeholder restorations an application declared, by tool name. A vault placeholder restores only
 * in a declared argument, as a whole value unless the declaration says `embedded`; a placeholder anywhere
 * else refuses the whole call. Placeholder-shaped text the vault never issued is left as it is.
 */
export class PlaceholderRestorations {
  private readonly byTool = new Map<string, readonly DeclaredPath[]>();

  /** @throws VerdictConfigurationError for a malformed declaration. */
  constructor(declarations: Readonly<Record<string, readonly PlaceholderRestoration[]>>) {
    for (const [tool, entries] of Object.entries(declarations)) {
      if (!Array.isArray(entries))
        throw new VerdictConfigurationError(
          `The placeholder restorations of tool "${tool}" must be an array of argument paths.`,
        );
      this.byTool.set(
        tool,
        entries.map((entry: unknown) => declaredPath(tool, entry)),
      );
    }
  }

  /** Whether any tool declares a restoration. */
  get declared(): boolean {
    return this.byTool.size > 0;
  }

  /** Restores `args` (plain JSON) of a call to `tool` from `vault`, or says why the call is refused. */
  apply(vault: PlaceholderVault, tool: string, args: unknown): RestorationOutcome {
    const declared = this.byTool.get(tool) ?? [];
    let refusal: RestorationRefusal | undefined;
    let restored = false;
    const walk = (value: unknown, at: readonly string[]): unknown => {
      if (Array.isArray(value)) return value.map((item: unknown, index) => walk(item, [...at, String(index)]));
      if (isPlainObject(value))
        return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, [...at, key])]));
      if (typeof value !== 'string' || refusal !== undefined) return value;
      const found = vault.placeholdersIn(value);
      if (found.length === 0) return value;
      const declaration = declared.find(({ path }) => matches(path, at));
      if (declaration === undefined) refusal = RestorationRefusal.OutsideDeclaredPath;
      else if (!declaration.embedded && value !== found[0]) refusal = RestorationRefusal.NotWholeValue;
      else if (
        declaration.labels !== undefined &&
        !found.every((placeholder) => declaration.labels!.has(labelOf(placeholder)))
      )
        refusal = RestorationRefusal.LabelNotDeclared;
      else {
        restored = true;
        return vault.restore(value);
      }
      return value;
    };
    const copy = walk(args, []);
    if (refusal !== undefined) return { kind: 'refused', reason: refusal };
    return restored ? { kind: 'restored', args: copy } : { kind: 'untouched' };
  }
}

function declaredPath(tool: string, entry: unknown): DeclaredPath {
  const declaration = typeof entry === 'string' ? { path: entry } : entry;
  const malformed = () =>
    new VerdictConfigurationError(
      `A placeholder restoration of tool "${tool}" must be a dot path or { path, embedded?: boolean, labels?: ['EMAIL', …] } (labels A–Z, 0–9, _, starting with a letter).`,
    );
  if (!isPlainObject(declaration)) throw malformed();
  const {
    path,
    embedded = false,
    labels,
    ...rest
  } = declaration as { path?: unknown; embedded?: unknown; labels?: unknown };
  if (Object.keys(rest).length > 0 || typeof embedded !== 'boolean') throw malformed();
  if (
    labels !== undefined &&
    (!Array.isArray(labels) ||
      labels.length === 0 ||
      !labels.every((label) => typeof label === 'string' && LABEL.test(label)))
  )
    throw malformed();
  try {
    return {
      path: parseReleasePath(path, 'placeholder restoration'),
      embedded,
      labels: labels === undefined ? undefined : new Set(labels as string[]),
    };
  } catch (error) {
    throw new VerdictConfigurationError(`Tool "${tool}": ${(error as Error).message}`, { tool }, { cause: error });
  }
}

function labelOf(placeholder: string): string {
  return PLACEHOLDER_LABEL.exec(placeholder)?.[1] ?? '';
}

/** A declared path names exactly this argument (a wildcard stands for one key or index). */
function matches(path: ReleasePath, at: readonly string[]): boolean {
  return (
    path.segments.length === at.length && path.segments.every((segment, i) => segment === WILDCARD || segment === at[i])
  );
}
