export { VerdictCliModule, type VerdictCliOptions } from './verdict-cli.module.js';
export { runVerdictCli, VERDICT_CLI } from './verdict-cli.program.js';
export { runVerdictBin, binArguments, type VerdictBinArguments } from './verdict-bin.js';
export {
  runCli,
  type CliCommandRunner,
  type CliCommandSpec,
  type CliOptionSpec,
  type CliProgramSpec,
  type RunCliOptions,
} from './cli-program.js';
export { CLI_STREAMS } from './cli-streams.token.js';
export type { CliStreams } from './cli-output.js';
export { table, fail, processStreams, printableStreams } from './cli-output.js';
export { line, type LineValue } from './output-line.js';
export { OPERATOR_IDENTITY, osOperatorIdentity, type OperatorIdentity } from './operator-identity.js';
export { ValidateCommand, DEFAULT_FAIL_ON, AUDIT_ERROR_EXIT_CODE } from './validate.command.js';
