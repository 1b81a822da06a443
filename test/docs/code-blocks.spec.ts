import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { checkDocument, documents, extractBlocks, readBlocks, repositoryRoot } from './code-blocks.js';

/**
 * Every TypeScript block of README.md and docs/ (ADRs excepted) compiles against the workspace's sources
 * with the repository's tsconfig; a block whose first line is `// partial: <why>` is exempt (see code-blocks.ts).
 */
describe('TypeScript blocks in README.md and docs/', () => {
  it('finds blocks, their lines, their file names and the partial marker', () => {
    const markdown = [
      '# t',
      '```ts',
      '// file: src/a.ts',
      'export const a = 1;',
      '```',
      '',
      '```ts',
      '// partial: a fragment',
      'x',
      '```',
    ].join('\n');
    expect(extractBlocks('t.md', markdown)).toEqual([
      { doc: 't.md', line: 2, code: '// file: src/a.ts\nexport const a = 1;\n', partial: false, file: 'src/a.ts' },
      { doc: 't.md', line: 7, code: '// partial: a fragment\nx\n', partial: true, file: 'block-7.ts' },
    ]);
  });

  it('reports a failing block with its document and line', () => {
    const doc = `${repositoryRoot}/docs/example.md`;
    const problems = checkDocument(doc, extractBlocks(doc, ['', '```ts', "const n: number = 'no';", '```'].join('\n')));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^docs\/example\.md:3:7 \(block at line 2\): TS2322/);
  });

  const docs = documents().filter((doc) => readBlocks(doc).length > 0);

  /** The workspace packages an outside application can install: those that are not private. */
  const published = ['packages', 'libs', 'apps'].flatMap((folder) =>
    readdirSync(join(repositoryRoot, folder), { withFileTypes: true })
      .map((entry) => join(repositoryRoot, folder, entry.name, 'package.json'))
      .filter((path) => existsSync(path))
      .map((path) => JSON.parse(readFileSync(path, 'utf8')) as { name: string; private?: boolean })
      .filter((manifest) => manifest.private !== true)
      .map((manifest) => manifest.name),
  );

  it('import only the workspace packages an application can install (none of the lab’s private libs)', () => {
    expect(published).toEqual(expect.arrayContaining(['@verdict/nestjs', '@verdict/evaluation']));
    const privateImports = docs.flatMap((doc) =>
      readBlocks(doc).flatMap((block) =>
        [...block.code.matchAll(/from '(@verdict\/[^/']+)/g)]
          .map(([, name]) => name!)
          .filter((name) => !published.includes(name))
          .map((name) => `${relative(repositoryRoot, doc)}:${block.line} imports ${name}`),
      ),
    );
    expect(privateImports).toEqual([]);
  });

  it.each(docs.map((doc) => [relative(repositoryRoot, doc), doc]))('%s compiles', (_name, doc) => {
    expect(checkDocument(doc, readBlocks(doc))).toEqual([]);
  });
});
