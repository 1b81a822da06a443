import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LabModule } from './lab.module.js';

// Every start begins from the seed: the lab is a demonstration, not a store of record.
const database = resolve(process.env.LAB_DATABASE ?? '.lab-data/storefront.sqlite');
mkdirSync(dirname(database), { recursive: true });
rmSync(database, { force: true });

const app = await NestFactory.create(LabModule.forRoot({ database }));
app.enableShutdownHooks();
const port = Number(process.env.PORT ?? 3000);
await app.listen(port, '127.0.0.1');
console.log(`Verdict storefront lab: http://localhost:${port} (SQLite at ${database})`);
