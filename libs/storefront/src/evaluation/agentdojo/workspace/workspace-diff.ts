import { isDeepStrictEqual } from 'node:util';
import type { WorkspaceEnvironment } from './workspace-environment.js';

/** The kinds of change the workspace checks compare, as DeepDiff names its report types. */
export type DiffKind =
  | 'dictionary_item_added'
  | 'dictionary_item_removed'
  | 'values_changed'
  | 'type_changes'
  | 'iterable_item_added'
  | 'iterable_item_removed';

/** The changes from one environment to another: per kind, each changed path (`root.calendar.events['5'].start_time`) and its new value. */
export type WorkspaceDiff = ReadonlyMap<DiffKind, ReadonlyMap<string, unknown>>;

/** The maps of the environment whose entries are keyed (`['id']` in a path); every other object is a record (`.field`). */
const KEYED = new Set(['events', 'emails', 'trash', 'files', 'shared_with']);

/**
 * The structural difference between a run's pre- and post-environment, as the suite's checks read it
 * (AgentDojo's `WorkspaceDeepDiff`; its excluded paths are views this environment does not hold): an entry
 * added to or removed from a keyed map, a leaf changed in value or type, an item appended to or dropped from
 * the end of a list.
 */
export function workspaceDiff(pre: WorkspaceEnvironment, post: WorkspaceEnvironment): WorkspaceDiff {
  const diff = new Map<DiffKind, Map<string, unknown>>();
  const note = (kind: DiffKind, path: string, value: unknown) => {
    if (!diff.has(kind)) diff.set(kind, new Map());
    diff.get(kind)!.set(path, value);
  };
  const walk = (before: unknown, after: unknown, path: string, field: string) => {
    if (Array.isArray(before) && Array.isArray(after)) {
      const common = Math.min(before.length, after.length);
      for (let i = 0; i < common; i += 1) walk(before[i], after[i], `${path}[${i}]`, field);
      for (let i = common; i < after.length; i += 1) note('iterable_item_added', `${path}[${i}]`, after[i]);
      for (let i = common; i < before.length; i += 1) note('iterable_item_removed', `${path}[${i}]`, before[i]);
      return;
    }
    if (isObject(before) && isObject(after)) {
      const keyed = KEYED.has(field);
      const at = (key: string) => (keyed ? `${path}['${key}']` : `${path}.${key}`);
      for (const key of Object.keys(after))
        if (!(key in before)) note(keyed ? 'dictionary_item_added' : 'values_changed', at(key), after[key]);
        else walk(before[key], after[key], at(key), key);
      for (const key of Object.keys(before))
        if (!(key in after)) note(keyed ? 'dictionary_item_removed' : 'values_changed', at(key), undefined);
      return;
    }
    if (isDeepStrictEqual(before, after)) return;
    note(typeOf(before) === typeOf(after) ? 'values_changed' : 'type_changes', path, after);
  };
  walk(pre, post, 'root', 'root');
  return diff;
}

/** The kinds of change in a diff. */
export const kindsOf = (diff: WorkspaceDiff) => new Set(diff.keys());

/** The paths changed in one kind. */
export const pathsOf = (diff: WorkspaceDiff, kind: DiffKind) => new Set(diff.get(kind)?.keys() ?? []);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
