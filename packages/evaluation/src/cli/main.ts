#!/usr/bin/env node
// verdict-eval: run security suites, keep baselines, compare runs, evaluate OWASP harness scenarios.
import 'reflect-metadata';
import { runEvaluationCli } from './evaluation-cli.module.js';

await runEvaluationCli();
