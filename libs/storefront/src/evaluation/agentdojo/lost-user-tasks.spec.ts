import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { EvaluationReport } from '@verdict/evaluation';
import { lostUserTasks, renderLostUserTasks } from './lost-user-tasks.js';

/** A checked-in baseline: the report of the workspace pack's `npm test` subset (one pair per user task). */
const baseline = (arm: string) =>
  JSON.parse(
    readFileSync(new URL(`../../../evaluation/agentdojo-workspace.${arm}.baseline.json`, import.meta.url), 'utf8'),
  ) as EvaluationReport;
const standard = (id: string) => id.includes('.standard:');

describe('lostUserTasks', () => {
  it('names the user tasks the provenance arm loses, clean and under attack, with the pairs lost', () => {
    const lost = lostUserTasks(baseline('provenance'), standard);
    expect(lost.clean).toEqual([13, 19, 25, 35, 38]);
    expect(renderLostUserTasks(lost)).toBe(
      'lost clean: 13, 19, 25, 35, 38 · under attack: 13 (1), 19 (1), 25 (1), 35 (1), 38 (1)',
    );
  });

  it('names the user tasks kept when an arm loses most of them under attack', () => {
    expect(renderLostUserTasks(lostUserTasks(baseline('naive'), standard))).toBe(
      'lost clean: none · under attack: all but 0',
    );
  });
});
