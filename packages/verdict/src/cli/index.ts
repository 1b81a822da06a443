export { VerdictCliModule } from './verdict-cli.module.js';
export { CLI_STREAMS } from './cli-streams.token.js';
export type { CliStreams } from './cli-output.js';
export { table, fail, processStreams } from './cli-output.js';
