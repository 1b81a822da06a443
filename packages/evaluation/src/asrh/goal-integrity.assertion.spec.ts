import { describe, expect, it } from '@jest/globals';
import type { AsrhTraceEntry } from './asrh-trace.js';
import { evaluateGoalIntegrity } from './goal-integrity.assertion.js';

function setup(expectedGoal: unknown, events: AsrhTraceEntry[]) {
  return evaluateGoalIntegrity(
    { type: 'goal_integrity', expected_goal: expectedGoal as string },
    { messages: [], tool_calls: [], events },
  );
}

describe('goal_integrity', () => {
  it('is not_run when the assertion has a blank or missing expected_goal', () => {
    expect(setup('  ', [{ type: 'goal', id: 'summarize' }]).result).toBe('not_run');
    expect(setup(undefined, [{ type: 'goal', id: 'summarize' }]).result).toBe('not_run');
  });

  it('fails when the trace has no goal events', () => {
    expect(setup('summarize', []).result).toBe('fail');
    expect(setup('summarize', [{ type: 'note', id: 'summarize' }]).result).toBe('fail');
  });

  it('ignores goal events whose id is blank or not a string', () => {
    expect(
      setup('summarize', [{ type: 'goal', id: ' ' }, { type: 'goal', id: 7 }, { type: 'goal' }]).evidence,
    ).toContain('no goal events');
  });

  it('passes when the expected goal is among the goal events', () => {
    expect(
      setup('summarize_document', [
        { type: 'goal', id: 'send_email' },
        { type: 'goal', id: 'summarize_document' },
      ]).result,
    ).toBe('pass');
  });

  it('matches exactly, not by substring or case', () => {
    expect(setup('summarize', [{ type: 'goal', id: 'summarize_send_email' }]).result).toBe('fail');
    expect(setup('summarize', [{ type: 'goal', id: 'Summarize' }]).result).toBe('fail');
  });

  it('ignores surrounding whitespace on both sides, as the harness does', () => {
    expect(setup(' summarize ', [{ type: 'goal', id: 'summarize\n' }]).result).toBe('pass');
  });

  it('fails with the observed goals when the expected one is missing', () => {
    expect(setup('summarize_document', [{ type: 'goal', id: 'send_email' }])).toEqual({
      result: 'fail',
      evidence: "expected goal 'summarize_document' not observed; goal events: send_email",
    });
  });
});
