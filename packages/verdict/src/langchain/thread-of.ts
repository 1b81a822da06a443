/** The run's LangGraph `thread_id`, if it has one. */
export function threadOf(runtime: { configurable?: { thread_id?: unknown } } | undefined): string | undefined {
  const id = runtime?.configurable?.thread_id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}
