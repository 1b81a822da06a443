import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  type ContractRunner,
  describeApprovalReceiptStoreContract,
  describeEvidenceRecorderContract,
  describeExecutionClaimStoreContract,
  describeRateLimitStoreContract,
  describeTrajectoryStoreContract,
  describeReviewItemStoreContract,
  describeDeferredQueueContract,
} from '@verdict/nestjs/testing';
import { assertCurrentBuild } from '@verdict/testing-kit';

const SCRIPT = fileURLToPath(new URL('./in-memory-contracts.test.mjs', import.meta.url));
const SUITES = [
  'ApprovalReceiptStore [memory]',
  'ExecutionClaimStore [memory]',
  'TrajectoryStore [memory]',
  'EvidenceRecorder [memory]',
  'RateLimitStore [memory]',
  'ReviewItemStore [memory]',
  'DeferredQueue [in-process]',
];

/** How many tests the contract suites register: what the node:test run must have run and passed. */
function contractTestCount(): number {
  let tests = 0;
  const runner: ContractRunner = {
    describe: (_name, fn) => fn(),
    it: () => void tests++,
    beforeAll: () => {},
    afterAll: () => {},
  };
  const never = () => Promise.reject(new Error('only counted'));
  for (const describeContract of [
    describeApprovalReceiptStoreContract,
    describeEvidenceRecorderContract,
    describeExecutionClaimStoreContract,
    describeRateLimitStoreContract,
    describeTrajectoryStoreContract,
    describeReviewItemStoreContract,
    describeDeferredQueueContract,
  ]) {
    describeContract('count', never, { runner });
  }
  return tests;
}

describe('the public testing kit under node:test', () => {
  it('runs every contract suite on the in-memory stores, the testing module and the scripted model, all passing', async () => {
    // The file imports the built package (@verdict/nestjs resolves to packages/verdict/dist): npm test builds first.
    assertCurrentBuild(new URL('../../packages/verdict/dist/testing/index.js', import.meta.url));
    const { JEST_WORKER_ID: _worker, ...env } = process.env;

    const { stdout } = await promisify(execFile)(process.execPath, ['--test', '--test-reporter=tap', SCRIPT], {
      env,
      timeout: 120_000,
    });

    const expected = contractTestCount() + 2;
    const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(stdout)?.[1]);
    expect({
      tests: count('tests'),
      pass: count('pass'),
      fail: count('fail'),
      cancelled: count('cancelled'),
      skipped: count('skipped'),
    }).toEqual({
      tests: expected,
      pass: expected,
      fail: 0,
      cancelled: 0,
      skipped: 0,
    });
    for (const suite of SUITES) expect(stdout).toContain(`# Subtest: ${suite.replace(' [', ' contract [')}`);
    expect(stdout).toContain('# Subtest: createVerdictTestingModule under node:test');
  });
});
