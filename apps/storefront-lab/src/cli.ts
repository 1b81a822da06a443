// `npm run verdict -- <command>`: the Verdict operator CLI against the lab's SQLite database.
//   npm run verdict -- claims list
//   npm run verdict -- claims resolve <id> completed|retryable --by operator:1 --reason "..." [--force]
//   npm run verdict -- rate-limits prune
//   npm run verdict -- evidence list [--capability orders.view] [--json]; evidence show <correlation-id>
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { runVerdictCli, VerdictCliModule } from '@verdict/nestjs/cli';
import { resolve } from 'node:path';
import { LabModule } from './lab.module.js';

const database = resolve(process.env.LAB_DATABASE ?? '.lab-data/storefront.sqlite');

@Module({ imports: [LabModule.forRoot({ database }), VerdictCliModule] })
class LabCliModule {}

await runVerdictCli(LabCliModule);
