import 'reflect-metadata';
import { createLabServer } from '/work/main/apps/storefront-lab/dist/server/lab-server.js';
import { mkdtempSync } from 'node:fs';
const sessions = mkdtempSync('/tmp/scratch/lab/sessions-');
const app = await createLabServer({ webRoot: '/tmp/scratch/lab/webdist', docsRoot: '/work/main/docs', sessionsDirectory: sessions, env: {} });
app.enableShutdownHooks();
await app.listen(Number(process.env.PORT ?? 3917), '127.0.0.1');
console.log('lab up', process.env.PORT ?? 3917, sessions);
