/** Optional injection token replacing the CLI's stdout/stderr (tests). */
export const CLI_STREAMS = Symbol('VerdictCliStreams');
