// `node bench/render-docs.js`: regenerates the figure blocks of docs/benchmarks.md from bench/results/
// without running a bench (after editing the prose around them). `bench/run.js` does the same after a run.
import { readFileSync, writeFileSync } from 'node:fs';
import { documentPath, readResults, renderDocument } from './results.js';

writeFileSync(documentPath, renderDocument(readFileSync(documentPath, 'utf8'), readResults()));
