// `npm run release [-- --out <dir>]`: packs @verdict/nestjs and @verdict/evaluation into versioned tarballs
// (`verdict-nestjs-<version>.tgz`, `verdict-evaluation-<version>.tgz`; each package's prepack builds it first)
// and writes their SHA-256 checksums to SHA256SUMS beside them, in `sha256sum -c` format. Default: release/.
// Prints one JSON line per tarball: { name, version, file, sha256 }.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGES = ['packages/verdict', 'packages/evaluation'];

const args = process.argv.slice(2);
const at = args.indexOf('--out');
const out = resolve(ROOT, at === -1 ? 'release' : (args[at + 1] ?? ''));
if (at !== -1 && args[at + 1] === undefined) {
  process.stderr.write('release: --out needs a directory\n');
  process.exit(2);
}
mkdirSync(out, { recursive: true });

const packed = JSON.parse(
  execFileSync('npm', ['pack', ...PACKAGES.flatMap((p) => ['-w', p]), '--pack-destination', out, '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  }),
);
const lines = [];
for (const { name, version, filename } of packed) {
  const sha256 = createHash('sha256')
    .update(readFileSync(join(out, filename)))
    .digest('hex');
  lines.push(`${sha256}  ${filename}`);
  process.stdout.write(`${JSON.stringify({ name, version, file: join(out, filename), sha256 })}\n`);
}
writeFileSync(join(out, 'SHA256SUMS'), `${lines.sort((a, b) => a.slice(66).localeCompare(b.slice(66))).join('\n')}\n`);
