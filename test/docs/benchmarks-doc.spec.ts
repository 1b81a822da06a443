import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repositoryRoot } from './code-blocks.js';

interface ResultsModule {
  documentPath: string;
  readResults(): unknown[];
  renderDocument(markdown: string, results: unknown[]): string;
  documentedBenches(markdown: string): string[];
}

/**
 * docs/benchmarks.md quotes only figures that a bench script wrote: its figure blocks are exactly what
 * bench/results.js renders from the results files in bench/results/, every bench script has one, and no
 * figure table stands outside them.
 */
describe('docs/benchmarks.md', () => {
  let results: ResultsModule;
  let markdown: string;
  beforeAll(async () => {
    results = (await import(pathToFileURL(join(repositoryRoot, 'bench', 'results.js')).href)) as ResultsModule;
    markdown = readFileSync(results.documentPath, 'utf8');
  });

  it('holds the figures of the results files, as the runner renders them', () => {
    expect(markdown).toBe(results.renderDocument(markdown, results.readResults()));
  });

  it('has a figure block for every bench script', () => {
    const scripts = readdirSync(join(repositoryRoot, 'bench'))
      .filter((name) => name.endsWith('.bench.js'))
      .map((name) => name.replace(/\.bench\.js$/, ''));
    expect(results.documentedBenches(markdown).sort()).toEqual(scripts.sort());
  });

  it('has no figure table written by hand outside the blocks', () => {
    const outside = markdown.replace(/<!-- results: [a-z0-9-]+ -->[\s\S]*?<!-- \/results -->/g, '');
    expect(outside.split('\n').filter((line) => /^\|.*\d.*\|$/.test(line))).toEqual([]);
  });
});
