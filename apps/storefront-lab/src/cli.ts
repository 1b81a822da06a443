// `npm run verdict -- <command>`: the Verdict operator CLI against a lab session's SQLite database.
//   npm run verdict -- claims list
//   npm run verdict -- claims resolve <id> completed|retryable --by operator:1 --reason "..." [--force]
//   npm run verdict -- rate-limits prune
//   npm run verdict -- evidence list [--capability orders.view] [--json]; evidence show <correlation-id>
// The Claims lab shows the exact command for your browser session (`LAB_DATABASE=.lab-data/sessions/… npm run
// verdict -- claims list`); without LAB_DATABASE the most recently used session is opened. `validate` audits the
// lab's wiring and reads no data, so it runs on an empty in-memory database.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { line, processStreams, runVerdictCli, VerdictCliModule } from '@verdict/nestjs/cli';
import { LabModule } from './lab.module.js';
import { LabDatabaseMissingError, SESSIONS_DIRECTORY, cliDatabase } from './session/session-databases.js';

function database(): string {
  if (process.argv[2] === 'validate') return ':memory:';
  try {
    const chosen = cliDatabase(process.env, SESSIONS_DIRECTORY);
    if (process.env.LAB_DATABASE === undefined) processStreams.err(line`verdict: opening ${chosen}`);
    return chosen;
  } catch (error) {
    if (!(error instanceof LabDatabaseMissingError)) throw error;
    processStreams.err(line`verdict: ${error.message}`);
    process.exit(2);
  }
}

@Module({ imports: [LabModule.forRoot({ database: database(), mustExist: true }), VerdictCliModule] })
class LabCliModule {}

await runVerdictCli(LabCliModule);
