/** The run button's companion: a spinner while the request is in flight, the server's message when it failed. */
export function Status({ loading, error }: { loading: boolean; error?: string }) {
  if (loading)
    return (
      <p className="status loading" role="status">
        <span className="spinner" aria-hidden="true" /> Running…
      </p>
    );
  if (error !== undefined)
    return (
      <p className="status error" role="alert">
        Something went wrong: {error}
      </p>
    );
  return null;
}
