import Sequencer from '@jest/test-sequencer';

/**
 * The files that take longest, by what they do, longest first: the browser, the outside application installed from
 * the packed tarballs (npm install and two full type-checks), the AgentDojo packs, the type-check of every docs code
 * block, races of real OS processes. They start first, in this order: Jest knows no durations on a fresh CI machine
 * and would otherwise order by file size, which puts several of them last, where one alone leaves the other worker
 * idle.
 */
const SLOW = [
  /\/test\/browser\//,
  /\/test\/consumer\/consumer\.spec\.ts$/,
  /\/agentdojo-packs\.spec\.ts$/,
  /\/test\/docs\/code-blocks\.spec\.ts$/,
  /\.concurrency\.spec\.ts$/,
];

/** Jest's own order (failed first, then by recorded duration, else by size), with the slow files moved to the front. */
export default class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const rank = (test) => {
      const index = SLOW.findIndex((pattern) => pattern.test(test.path));
      return index === -1 ? SLOW.length : index;
    };
    // Array.prototype.sort is stable: within a rank (and among the other files), Jest's order stays.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
