import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertCurrentBuild } from '@verdict/testing-kit';

/**
 * What each entry point of `@verdict/nestjs` loads when an application imports it, read from the built files the
 * package ships: every module it imports at load time (static `import` and `export … from`; a dynamic `import()` is
 * loaded only when the feature that needs it runs), and the packages those name. An application installs the
 * optional peers of the entry points it imports (README, "In your own application") and no others: importing
 * `@verdict/nestjs/ai-sdk` must not need `@openai/agents`, nor the root entry point `typeorm`.
 */
const PACKAGE = fileURLToPath(new URL('../../packages/verdict/', import.meta.url));
// The built files are what is read: refuse a build older than the sources rather than check old code.
assertCurrentBuild(new URL('../../packages/verdict/dist/index.js', import.meta.url));
const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
  exports: Record<string, { default: string }>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

/** The optional peers each entry point needs at load time (docs/architecture.md, "Entry points"). */
const OPTIONAL_PEERS_NEEDED: Record<string, readonly string[]> = {
  '.': [],
  './typeorm': ['typeorm'],
  './langchain': ['@langchain/core', '@langchain/langgraph', 'langchain'],
  './cli': [],
  './bullmq': ['@nestjs/bullmq'],
  './mcp': ['@modelcontextprotocol/sdk'],
  './ai-sdk': ['ai'],
  './openai-agents': ['@openai/agents'],
  './testing': [],
  './testing/langchain': ['@langchain/core'],
};

/** A module's load-time imports: `import … from`, `export … from` and bare `import '…'`, as tsc emits them. */
const LOAD_TIME_IMPORT = /^\s*(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm;

/** The packages a module graph imports at load time, from the entry file `entry`, and how many modules it holds. */
function loadTimePackages(entry: string): { packages: Set<string>; modules: number } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(LOAD_TIME_IMPORT)) {
      const specifier = (match[1] ?? match[2])!;
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        pending.push(existsSync(target) && !target.endsWith('/') ? target : `${target}.js`);
      } else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
        const parts = specifier.split('/');
        packages.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
      }
    }
  }
  return { packages, modules: seen.size };
}

const optional = (name: string) => manifest.peerDependenciesMeta[name]?.optional === true;

describe("the packages each entry point of @verdict/nestjs loads: the application's install needs no others", () => {
  it('lists every exported entry point (a new one needs its row)', () => {
    expect(Object.keys(manifest.exports).sort()).toEqual(Object.keys(OPTIONAL_PEERS_NEEDED).sort());
  });

  for (const [entryPoint, needed] of Object.entries(OPTIONAL_PEERS_NEEDED)) {
    it(`${entryPoint} loads only declared packages, and of the optional peers only ${needed.join(', ') || 'none'}`, () => {
      const { packages, modules } = loadTimePackages(join(PACKAGE, manifest.exports[entryPoint]!.default));
      // The graph was read: an entry point re-exports modules of its own.
      expect(modules).toBeGreaterThan(1);
      const undeclared = [...packages].filter(
        (name) => manifest.dependencies[name] === undefined && manifest.peerDependencies[name] === undefined,
      );
      expect(undeclared).toEqual([]);
      expect([...packages].filter(optional).sort()).toEqual([...needed].sort());
    });
  }
});
