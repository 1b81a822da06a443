import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { aggregateAsrhResults, AsrhResult } from './asrh-result.js';

const anyResult = fc.constantFrom(AsrhResult.Pass, AsrhResult.Fail, AsrhResult.Error, AsrhResult.NotRun);

describe('aggregateAsrhResults', () => {
  it('fails when any assertion fails, even next to errors', () => {
    expect(aggregateAsrhResults(['pass', 'error', 'fail', 'not_run'])).toBe('fail');
  });

  it('errors when nothing fails but something errors', () => {
    expect(aggregateAsrhResults(['pass', 'not_run', 'error'])).toBe('error');
  });

  it('passes only when every assertion passes', () => {
    expect(aggregateAsrhResults(['pass', 'pass'])).toBe('pass');
    expect(aggregateAsrhResults(['pass', 'not_run'])).toBe('not_run');
  });

  it('is not_run for no assertions at all', () => {
    expect(aggregateAsrhResults([])).toBe('not_run');
  });

  it('follows fail > error > all-pass > not_run for any mix, in any order', () => {
    fc.assert(
      fc.property(fc.array(anyResult), (results) => {
        const expected = results.includes('fail')
          ? 'fail'
          : results.includes('error')
            ? 'error'
            : results.length > 0 && !results.some((r) => r !== 'pass')
              ? 'pass'
              : 'not_run';
        expect(aggregateAsrhResults(results)).toBe(expected);
        expect(aggregateAsrhResults([...results].reverse())).toBe(expected);
      }),
    );
  });
});
