import { useCallback, useState } from 'react';

/** One request the page makes on a click: its result, its error and whether it is in flight. */
export function useAction<TArgs extends unknown[], TResult>(action: (...args: TArgs) => Promise<TResult>) {
  const [state, setState] = useState<{ data?: TResult; error?: string; loading: boolean }>({ loading: false });
  const run = useCallback(
    async (...args: TArgs) => {
      setState((previous) => ({ ...previous, loading: true, error: undefined }));
      try {
        const data = await action(...args);
        setState({ data, loading: false });
        return data;
      } catch (error) {
        setState({ loading: false, error: error instanceof Error ? error.message : String(error) });
        return undefined;
      }
    },
    [action],
  );
  return { ...state, run };
}
