/** A live suite, case, provider configuration or run option is malformed. Nothing ran. */
export class LiveSuiteError extends Error {
  override name = 'LiveSuiteError';
}
