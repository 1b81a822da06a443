import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The TypeScript blocks of README.md and docs/ (test/docs/code-blocks.spec.ts type-checks them).
 *
 * - Every fenced block opened with ```ts (or ```typescript) is checked, except one whose first line is
 *   `// partial: <why>` — the one marker for a block that is deliberately a fragment.
 * - A block whose first line is `// file: <path>` is written at that path (relative to its document's own
 *   directory of blocks), so the blocks of one guide can import each other (`import { X } from './x.js'`).
 *   Any other block is `block-<line>.ts`.
 * - Each document is one program: its blocks are separate modules, and a `declare module` augmentation
 *   (VerdictTypes) in one block types the document's other blocks, never another document's.
 * - What is reported is every diagnostic of the blocks themselves, and the program's global and option ones; the
 *   workspace's sources the blocks import are checked by `npm run typecheck` (ADR 0056). The workspace's files
 *   are parsed once and shared by the documents' programs.
 * - ADRs (docs/adr/) are not checked: they record decisions, and their code may show the API as it was.
 */
export interface DocBlock {
  readonly doc: string;
  /** 1-based line of the opening fence in the document. */
  readonly line: number;
  readonly code: string;
  readonly partial: boolean;
  /** Path of the block's virtual file, relative to its document's block directory. */
  readonly file: string;
}

export const repositoryRoot = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');

export function documents(root = repositoryRoot): string[] {
  const found: string[] = [join(root, 'README.md')];
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (relative(root, path) !== join('docs', 'adr')) walk(path);
      } else if (entry.name.endsWith('.md')) {
        found.push(path);
      }
    }
  };
  walk(join(root, 'docs'));
  return found.filter((path) => existsSync(path));
}

export function extractBlocks(doc: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)\s*$/.exec(lines[index]);
    if (open === null) continue;
    const [, indent, fence] = open;
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !lines[end].trim().startsWith(fence)) {
      body.push(lines[end].startsWith(indent) ? lines[end].slice(indent.length) : lines[end]);
      end++;
    }
    const first = body.find((line) => line.trim() !== '') ?? '';
    const file = /^\/\/\s*file:\s*(\S+\.ts)\s*$/.exec(first.trim())?.[1] ?? `block-${index + 1}.ts`;
    blocks.push({
      doc,
      line: index + 1,
      code: body.join('\n') + '\n',
      partial: /^\/\/\s*partial:/.test(first.trim()),
      file,
    });
    index = end;
  }
  return blocks;
}

function compilerOptions(root: string): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root);
  return { ...parsed.options, noEmit: true, moduleDetection: ts.ModuleDetectionKind.Force, noUnusedLocals: false };
}

/** Type-checks one document's blocks; answers `doc:line: message` for each error (empty when all compile). */
export function checkDocument(doc: string, blocks: readonly DocBlock[], root = repositoryRoot): string[] {
  const checked = blocks.filter((block) => !block.partial);
  if (checked.length === 0) return [];
  // Virtual files under the repository, so that node_modules and the tsconfig paths resolve as for a test.
  const base = join(root, 'test', 'docs', '.blocks', relative(root, doc).replace(/[\\/]/g, '__'));
  const virtual = new Map<string, DocBlock>();
  for (const block of checked) {
    const path = join(base, block.file);
    if (virtual.has(path)) throw new Error(`${relative(root, doc)}:${block.line}: a second block named ${block.file}`);
    virtual.set(path, block);
  }
  const options = compilerOptions(root);
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile, directoryExists } = host;
  const getSourceFile = sharedSourceFiles(host, root);
  const directories = new Set([...virtual.keys()].flatMap((path) => ancestors(path)));
  host.fileExists = (path) => virtual.has(path) || fileExists.call(host, path);
  host.directoryExists = (path) =>
    directories.has(path) || (directoryExists?.call(host, path) ?? ts.sys.directoryExists(path));
  host.readFile = (path) => virtual.get(path)?.code ?? readFile.call(host, path);
  host.getSourceFile = (path, language, onError, create) => {
    const block = virtual.get(path);
    return block === undefined
      ? getSourceFile(path, language, onError, create)
      : ts.createSourceFile(path, block.code, language, true);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  // The blocks' own diagnostics: whatever a block gets wrong is reported in the block. The workspace's sources
  // are type-checked by `npm run typecheck`, as a user's compiler with skipLibCheck never checks a package's.
  const diagnostics = [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...[...virtual.keys()].flatMap((path) => {
      const file = program.getSourceFile(path)!;
      return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    }),
  ];
  return ts.sortAndDeduplicateDiagnostics(diagnostics).map((diagnostic) => {
    const block = diagnostic.file === undefined ? undefined : virtual.get(diagnostic.file.fileName);
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (diagnostic.file === undefined || block === undefined) {
      return `${relative(root, doc)}: ${diagnostic.file === undefined ? '' : diagnostic.file.fileName + ': '}${message}`;
    }
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    // The opening fence is at block.line; the block's first line is the next one.
    return `${relative(root, doc)}:${block.line + 1 + line}:${character + 1} (block at line ${block.line}): TS${diagnostic.code} ${message}`;
  });
}

/**
 * Source files outside the blocks, parsed once per test file and shared by every document's program (as a
 * language service shares them): each program still binds and checks on its own, so one document's
 * augmentation never types another's blocks. Keyed by path and language version; the workspace's files do
 * not change while the spec runs.
 */
const parsedFiles = new Map<string, ts.SourceFile | undefined>();

function sharedSourceFiles(host: ts.CompilerHost, root: string): ts.CompilerHost['getSourceFile'] {
  const parse = host.getSourceFile.bind(host);
  return (path, language, onError, create) => {
    const version = typeof language === 'object' ? language.languageVersion : language;
    const key = `${root}\0${version}\0${path}`;
    if (!parsedFiles.has(key)) parsedFiles.set(key, parse(path, language, onError, create));
    return parsedFiles.get(key);
  };
}

function ancestors(path: string): string[] {
  const found: string[] = [];
  for (let directory = dirname(path); directory !== dirname(directory); directory = dirname(directory))
    found.push(directory);
  return found;
}

export function readBlocks(doc: string): DocBlock[] {
  return extractBlocks(doc, readFileSync(doc, 'utf8'));
}
