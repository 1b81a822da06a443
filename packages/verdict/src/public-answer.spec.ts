import { describe, expect, it } from '@jest/globals';
import { readNotExecutedMessage } from './public-answer.js';

const answer = { status: 'not_executed', capability: 'orders.view', decision: 'deny', message: 'Not done.' };

describe('readNotExecutedMessage', () => {
  it('reads Verdict’s exact answer', () => {
    expect(readNotExecutedMessage(JSON.stringify(answer))).toEqual(answer);
  });

  it.each([
    ['an extra field', { ...answer, customer: 'Ada' }],
    ['an unknown disposition', { ...answer, decision: 'maybe' }],
    ['another status', { ...answer, status: 'done' }],
    ['a non-string message', { ...answer, message: { text: 'x' } }],
    ['a missing capability', { status: 'not_executed', decision: 'deny', message: 'Not done.' }],
  ])('refuses %s: anything else may carry data', (_, value) => {
    expect(readNotExecutedMessage(JSON.stringify(value))).toBeNull();
  });

  it('reads executor output and plain text as no answer', () => {
    expect(readNotExecutedMessage('{"id":1002}')).toBeNull();
    expect(readNotExecutedMessage('not json')).toBeNull();
    expect(readNotExecutedMessage('[1]')).toBeNull();
  });
});
