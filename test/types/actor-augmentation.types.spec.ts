import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Compiles test/types/augmented-app on its own (ADR 0018): an application that registers `VerdictTypes`
 * must see its actor and tenant in every callback, and its `@ts-expect-error` cases must be errors. A
 * separate program, because an augmentation would retype the actor of every other test in this repository.
 */
describe('VerdictTypes registration', () => {
  it('types the actor and tenant of an application that registers them', () => {
    const configPath = join(dirname(fileURLToPath(import.meta.url)), 'augmented-app', 'tsconfig.json');
    const { config, error } = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
    expect(error).toBeUndefined();
    const parsed = ts.parseJsonConfigFileContent(config, ts.sys, dirname(configPath));
    expect(parsed.fileNames).toHaveLength(1);
    const program = ts.createProgram(parsed.fileNames, parsed.options);
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where =
        diagnostic.file === undefined
          ? ''
          : `${diagnostic.file.fileName}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}: `;
      return where + ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    });
    expect(problems).toEqual([]);
  });
});
