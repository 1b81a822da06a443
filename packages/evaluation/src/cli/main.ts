#!/usr/bin/env node
// verdict-eval: run security suites, keep baselines, compare runs, evaluate OWASP harness scenarios.
import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { EvaluationCliModule } from './evaluation-cli.module.js';

await CommandFactory.run(EvaluationCliModule, { logger: ['error'] });
