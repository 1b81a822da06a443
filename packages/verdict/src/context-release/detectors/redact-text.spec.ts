import { describe, expect, it } from '@jest/globals';
import { DataClass } from '../data-class.js';
import { DEFAULT_DETECTORS } from './default-detectors.js';
import { detect } from './detect.js';
import type { DetectedSpan } from './detected-span.js';
import { DetectionInputError } from './detection-input.error.js';
import { redactText } from './redact-text.js';

const span = (start: number, end: number): DetectedSpan => ({
  detector: 'test',
  label: 'TEST',
  dataClass: DataClass.Pii,
  start,
  end,
});

describe('redactText', () => {
  it('replaces every detected value with [REDACTED] and keeps the rest', () => {
    const text = 'Mail ada@example.org or call +1 415 555 2671.';
    expect(redactText(text, detect(text, DEFAULT_DETECTORS))).toBe('Mail [REDACTED] or call [REDACTED].');
  });

  it('uses a custom replacement, once per span, for spans in any order', () => {
    expect(redactText('abcdefgh', [span(6, 8), span(0, 2), span(2, 3)], '#')).toBe('##def#');
  });

  it('returns the text unchanged when there are no spans', () => {
    expect(redactText('nothing here', [])).toBe('nothing here');
  });

  it.each([
    ['a span past the end', [span(4, 20)]],
    ['an empty span', [span(3, 3)]],
    ['a negative start', [span(-1, 2)]],
    ['a fractional offset', [span(1.5, 4)]],
    ['overlapping spans', [span(0, 5), span(4, 8)]],
  ])('refuses %s', (_case, spans) => {
    expect(() => redactText('abcdefghij', spans)).toThrow(DetectionInputError);
  });
});
