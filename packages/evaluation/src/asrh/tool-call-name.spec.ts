import { describe, expect, it } from '@jest/globals';
import { asrhToolCallName } from './tool-call-name.js';

describe('asrhToolCallName', () => {
  it('prefers name, then tool, then tool_name', () => {
    expect(asrhToolCallName({ name: 'a', tool: 'b', tool_name: 'c' })).toBe('a');
    expect(asrhToolCallName({ tool: 'b', tool_name: 'c' })).toBe('b');
    expect(asrhToolCallName({ tool_name: 'c' })).toBe('c');
  });

  it('skips blank and non-string fields and trims the name it picks', () => {
    expect(asrhToolCallName({ name: '   ', tool: 42, tool_name: '  shell\n' })).toBe('shell');
  });

  it('returns undefined when no field names a tool', () => {
    expect(asrhToolCallName({ name: '', arguments: { name: 'shell' } })).toBeUndefined();
  });
});
