import { describe, expect, it } from '@jest/globals';
import { InvalidReleaseRequestError } from './invalid-release-request.error.js';
import { canOverlap, coversPath, escapeKey, parseReleasePath, parseReleasePaths, renderPath } from './release-path.js';

const path = (text: string) => parseReleasePath(text, 'only()');

describe('release paths', () => {
  describe('parseReleasePath', () => {
    it('splits a dot path into segments', () => {
      expect(path('orders.*.status').segments).toEqual(['orders', '*', 'status']);
    });

    it.each(['', 'orders..status', '.orders', 'orders.', 'a.__proto__', 'constructor', 'orders.*.prototype'])(
      'refuses %j',
      (text) => {
        expect(() => path(text)).toThrow(InvalidReleaseRequestError);
      },
    );

    it('refuses a non-string path and a string in place of a list', () => {
      expect(() => parseReleasePath(7, 'only()')).toThrow(InvalidReleaseRequestError);
      expect(() => parseReleasePaths('first_name', 'only()')).toThrow(InvalidReleaseRequestError);
    });

    it('reads a key with a dot, a backslash or a star as evidence writes it (renderPath, escapeKey)', () => {
      expect(path('profile.tax\\.id').segments).toEqual(['profile', 'tax.id']);
      expect(path('dir.C:\\\\').segments).toEqual(['dir', 'C:\\']);
      expect(path('a\\*b').segments).toEqual(['a*b']);
      for (const segments of [['tax.id'], ['a\\', 'b'], ['a\\.b'], ['orders', '0', 'status'], ['.', '\\\\']])
        expect(path(renderPath(segments)).segments).toEqual(segments);
      expect(path(['x.y', 'a*b'].map((key) => escapeKey(key, true)).join('.')).segments).toEqual(['x.y', 'a*b']);
    });

    it.each(['a\\b', 'a\\', 'orders.\\*', 'a.\\_'])('refuses the escape in %j', (text) => {
      expect(() => path(text)).toThrow(InvalidReleaseRequestError);
    });

    it('drops duplicate paths', () => {
      expect(parseReleasePaths(['a', 'b', 'a'], 'only()').map((p) => p.text)).toEqual(['a', 'b']);
    });
  });

  describe('coversPath', () => {
    it('covers the addressed path and everything beneath it, with * matching any one key or index', () => {
      expect(coversPath(path('orders.*.status'), ['orders', '3', 'status'])).toBe(true);
      expect(coversPath(path('orders'), ['orders', '3', 'status'])).toBe(true);
      expect(coversPath(path('orders.*.status'), ['orders', '3'])).toBe(false);
      expect(coversPath(path('orders.0'), ['orders', '1'])).toBe(false);
    });
  });

  describe('canOverlap', () => {
    it('is true when one path can reach into the other', () => {
      expect(canOverlap(path('orders.*.email'), path('orders'))).toBe(true);
      expect(canOverlap(path('orders'), path('orders.*.email'))).toBe(true);
      expect(canOverlap(path('orders.1.email'), path('orders.*.email'))).toBe(true);
      expect(canOverlap(path('*.email'), path('profile.email'))).toBe(true);
    });

    it('is false when the paths part ways', () => {
      expect(canOverlap(path('profile.email'), path('orders.*.status'))).toBe(false);
      expect(canOverlap(path('orders.*.email'), path('orders.*.status'))).toBe(false);
    });
  });

  describe('renderPath', () => {
    it('escapes dots and backslashes inside keys, so different paths never render alike', () => {
      expect(renderPath(['a.b'])).not.toBe(renderPath(['a', 'b']));
      expect(renderPath(['a\\', 'b'])).not.toBe(renderPath(['a\\.b']));
      expect(renderPath(['orders', '0', 'status'])).toBe('orders.0.status');
    });
  });
});
