export { VerdictCliModule, type VerdictCliOptions } from './verdict-cli.module.js';
export { CLI_STREAMS } from './cli-streams.token.js';
export type { CliStreams } from './cli-output.js';
export { table, fail, processStreams } from './cli-output.js';
export { OPERATOR_IDENTITY, osOperatorIdentity, type OperatorIdentity } from './operator-identity.js';
