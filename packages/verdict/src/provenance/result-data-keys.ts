import { passesThrough, type ReleasePath, WILDCARD } from '../context-release/release-path.js';
import type { ResultPathLabel } from './result-provenance.js';

/** A declared result path with its label. */
export type LabelledPath = readonly [ReleasePath, ResultPathLabel];

/**
 * The path labels under which the keys of the object at `segments` are the map's data, not the result's structure: a
 * `*` segment of the path matches them, whether it ends the path (`byAuthor.*`: each entry is the label's) or a
 * deeper leaf follows (`byAuthor.*.text`: each entry's text is). The application named no such key, as a scan path's
 * `*` above a scanned leaf names none (ADR 0155): whoever wrote the entries wrote their keys (ADR 0164). A key a path
 * spells (`byAuthor.staff`) is a name the application wrote. In the order of `paths`.
 *
 * @example dataKeyPaths([[parseReleasePath('byAuthor.*.text', 'result provenance'), label]], ['byAuthor']).length === 1
 */
export function dataKeyPaths(paths: readonly LabelledPath[], segments: readonly string[]): readonly LabelledPath[] {
  return paths.filter(([path]) => passesThrough(path, segments) && path.segments[segments.length] === WILDCARD);
}

/**
 * The keys of the object at `segments` that a declared path spells (`byAuthor.staff` spells `staff` under `byAuthor`):
 * names the application wrote, so never the map's data, whatever a `*` beside them matches.
 */
export function spelledKeys(paths: readonly ReleasePath[], segments: readonly string[]): ReadonlySet<string> {
  const spelled = new Set<string>();
  for (const path of paths) {
    const key = path.segments[segments.length];
    if (key !== WILDCARD && passesThrough(path, segments)) spelled.add(key!);
  }
  return spelled;
}
