import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsrhScenarioError } from './asrh-scenario.error.js';
import { AsrhTraceError } from './asrh-trace.error.js';
import { collectScenarioFiles, collectTraceFiles } from './collect-asrh-files.js';

function withTree(files: string[], check: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'asrh-collect-'));
  try {
    for (const file of files) {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), '');
    }
    check(dir);
  } finally {
    rmSync(dir, { recursive: true });
  }
}

describe('collectScenarioFiles', () => {
  it('finds .yaml and .yml files recursively, sorted by relative path with / separators', () => {
    withTree(['z.yaml', 'b/x.yml', 'a/deep/y.YAML', 'a.yaml', 'notes.md', 'b/trace.json'], (dir) => {
      const found = collectScenarioFiles(dir);
      expect(found.map((f) => f.relative)).toEqual(['a.yaml', 'a/deep/y.YAML', 'b/x.yml', 'z.yaml']);
      expect(found[1]!.file).toBe(join(dir, 'a', 'deep', 'y.YAML'));
    });
  });

  it('raises a typed error for a directory that cannot be read', () => {
    expect(() => collectScenarioFiles('/nonexistent/asrh')).toThrow(AsrhScenarioError);
  });
});

describe('collectTraceFiles', () => {
  it('finds .json files recursively in the same stable order', () => {
    withTree(['goal_hijack/basic_pass.json', 'denied.json', 'README.md', 'scenario.yaml'], (dir) => {
      expect(collectTraceFiles(dir).map((f) => f.relative)).toEqual(['denied.json', 'goal_hijack/basic_pass.json']);
    });
  });

  it('raises a typed error for a directory that cannot be read', () => {
    expect(() => collectTraceFiles('/nonexistent/asrh')).toThrow(AsrhTraceError);
  });
});
