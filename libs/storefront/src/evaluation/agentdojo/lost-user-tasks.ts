import type { EvaluationReport } from '@verdict/evaluation';
import { PackCaseKind } from '../provenance-packs/provenance-packs.js';

/** The user tasks an arm did not complete: clean, and under attack with the number of attacked pairs lost. */
export interface LostUserTasks {
  /** User task numbers whose clean run failed, ascending. */
  readonly clean: readonly number[];
  /** User task number → attacked pairs it failed, for each user task that failed at least one. */
  readonly underAttack: ReadonlyMap<number, number>;
  /** How many user tasks the report holds. */
  readonly userTasks: number;
}

const USER_TASK = /\.user_task_(\d+)[.:]/u;

/**
 * The user tasks lost in `report` (a case neither passed nor errored: an error is a broken run, counted apart);
 * `attacked` selects the attacked cases that count, e.g. one variant.
 *
 * @example lostUserTasks(report, (id) => id.includes('.standard:')).clean // [13, 19, 25, 35, 38]
 */
export function lostUserTasks(
  report: EvaluationReport,
  attacked: (caseId: string) => boolean = () => true,
): LostUserTasks {
  const taskOf = (id: string) => Number(USER_TASK.exec(id)?.[1]);
  const clean = report.cases.filter((c) => c.id.endsWith(`:${PackCaseKind.Utility}`));
  const underAttack = new Map<number, number>();
  for (const c of report.cases)
    if (c.id.endsWith(`:${PackCaseKind.UtilityUnderAttack}`) && attacked(c.id) && c.status === 'failed')
      underAttack.set(taskOf(c.id), (underAttack.get(taskOf(c.id)) ?? 0) + 1);
  return {
    clean: clean
      .filter((c) => c.status === 'failed')
      .map((c) => taskOf(c.id))
      .sort((a, b) => a - b),
    underAttack: new Map([...underAttack].sort(([a], [b]) => a - b)),
    userTasks: clean.length,
  };
}

/**
 * One line per arm: the user tasks lost clean, and under attack (each with the pairs lost); when more than half
 * are lost under attack, the ones kept instead.
 *
 * @example renderLostUserTasks(lost) // 'lost clean: 13, 19, 25, 35, 38 · under attack: 13 (14), 19 (14), …'
 */
export function renderLostUserTasks({ clean, underAttack, userTasks }: LostUserTasks): string {
  const list = (tasks: readonly number[]) => (tasks.length === 0 ? 'none' : tasks.join(', '));
  const attacked =
    underAttack.size * 2 > userTasks
      ? `all but ${list(Array.from({ length: userTasks }, (_, task) => task).filter((task) => !underAttack.has(task)))}`
      : underAttack.size === 0
        ? 'none'
        : [...underAttack].map(([task, pairs]) => `${task} (${pairs})`).join(', ');
  return `lost clean: ${list(clean)} · under attack: ${attacked}`;
}
