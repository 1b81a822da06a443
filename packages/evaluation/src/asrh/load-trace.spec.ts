import { describe, expect, it } from '@jest/globals';
import { AsrhTraceError } from './asrh-trace.error.js';
import { loadTrace } from './load-trace.js';

function loadError(text: string, name = 'traces/t.json'): AsrhTraceError {
  try {
    loadTrace({ text, name });
  } catch (error) {
    if (error instanceof AsrhTraceError) return error;
    throw error;
  }
  throw new Error('expected an AsrhTraceError');
}

describe('loadTrace', () => {
  it('loads the three lists', () => {
    const trace = loadTrace({
      text: '{"messages":[{"role":"user"}],"tool_calls":[{"name":"shell"}],"events":[{"type":"goal","id":"g"}]}',
    });
    expect(trace).toEqual({
      messages: [{ role: 'user' }],
      tool_calls: [{ name: 'shell' }],
      events: [{ type: 'goal', id: 'g' }],
    });
  });

  it('loads missing lists as empty', () => {
    expect(loadTrace({ text: '{"events":[]}' })).toEqual({ messages: [], tool_calls: [], events: [] });
  });

  it('refuses a list that is null or not a list, naming the path', () => {
    expect(loadError('{"tool_calls":null}').path).toBe('$.tool_calls');
    expect(loadError('{"events":{}}').path).toBe('$.events');
  });

  it('refuses list entries that are not objects', () => {
    const error = loadError('{"tool_calls":[{"name":"a"},"send_email"]}', 'traces/x.json');
    expect(error).toMatchObject({ code: 'VERDICT_ASRH_TRACE', file: 'traces/x.json', path: '$.tool_calls[1]' });
    expect(error.message).toContain('traces/x.json: $.tool_calls[1]: must be an object');
  });

  it('refuses unknown top-level keys, whose content no assertion would scan', () => {
    expect(loadError('{"events":[],"notes":"x"}').path).toBe('$.notes');
  });

  it('refuses a non-object document', () => {
    expect(loadError('[]').problem).toBe('must be a JSON object');
  });

  it('reports invalid JSON without quoting the text', () => {
    const error = loadError('{"messages": [{"content": "SECRET-VALUE-123"}');
    expect(error.problem).toBe('is not valid JSON');
    expect(error.message).not.toContain('SECRET-VALUE-123');
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('names an unreadable file', () => {
    expect(() => loadTrace({ file: '/nonexistent/asrh/trace.json' })).toThrow(
      expect.objectContaining({ file: '/nonexistent/asrh/trace.json', path: '$' }),
    );
  });
});
