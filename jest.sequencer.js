import Sequencer from '@jest/test-sequencer';

/**
 * The files that take longest, by what they do: races of real OS processes, the browser, the type-check of every
 * docs code block, the AgentDojo packs. They start first: Jest knows no durations on a fresh CI machine and would
 * otherwise order by file size, which puts several of them last, where one alone leaves the other worker idle.
 */
const SLOW = [
  /\.concurrency\.spec\.ts$/,
  /\/test\/browser\//,
  /\/test\/docs\/code-blocks\.spec\.ts$/,
  /\/agentdojo-packs\.spec\.ts$/,
];

/** Jest's own order (failed first, then by recorded duration, else by size), with the slow files moved to the front. */
export default class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const slow = (test) => SLOW.some((pattern) => pattern.test(test.path));
    return [...sorted.filter(slow), ...sorted.filter((test) => !slow(test))];
  }
}
