import { Module } from '@nestjs/common';
import { AsrhCommand } from './asrh.command.js';
import { BaselineWriteCommand } from './baseline-write.command.js';
import { BaselineCommand } from './baseline.command.js';
import { CompareCommand } from './compare.command.js';
import { RunCommand } from './run.command.js';

/** The `verdict-eval` commands (nest-commander): run, baseline write, compare, asrh. */
@Module({ providers: [RunCommand, BaselineCommand, BaselineWriteCommand, CompareCommand, AsrhCommand] })
export class EvaluationCliModule {}
