import { useCallback, useState } from 'react';
import { LabApiError, type RefusalView } from './api';

/** Why a request did not answer 2xx: the server's message, and the refusal when a guarded endpoint refused. */
export interface LabProblem {
  readonly message: string;
  readonly refusal: RefusalView | null;
}

/** One request the page makes on a click: its result, its problem and whether it is in flight. */
export function useAction<TArgs extends unknown[], TResult>(action: (...args: TArgs) => Promise<TResult>) {
  const [state, setState] = useState<{ data?: TResult; error?: LabProblem; loading: boolean }>({ loading: false });
  const run = useCallback(
    async (...args: TArgs) => {
      setState((previous) => ({ ...previous, loading: true, error: undefined }));
      try {
        const data = await action(...args);
        setState({ data, loading: false });
        return data;
      } catch (error) {
        const refusal = error instanceof LabApiError ? error.refusal : null;
        const message = error instanceof Error ? error.message : String(error);
        setState({ loading: false, error: { message, refusal } });
        return undefined;
      }
    },
    [action],
  );
  return { ...state, run };
}
