import { useEffect } from 'react';
import { labApi } from '../api';
import { Status } from '../components/status';
import { useAction } from '../use-action';

const COLUMNS = ['id', 'capability', 'policy', 'status', 'attempt', 'claimed_at', 'updated_at'] as const;

/** The claims panel: this session's execution claims in the columns of the operator CLI. */
export function ClaimsLab() {
  const { data, loading, error, run } = useAction(labApi.claims);
  useEffect(() => void run(), [run]);
  return (
    <>
      <p className="lede">
        What an operator sees with <code>npm run verdict -- claims list</code> (which lists the unresolved claims; this
        panel shows every claim of your session, resolved ones included). Run the duplicate-delivery lab to make one.
      </p>
      <button type="button" id="reload-claims" onClick={() => void run()}>
        Reload
      </button>
      <Status loading={loading} error={error} />
      {data !== undefined && data.length === 0 && <p className="muted">No execution claims in this session yet.</p>}
      {data !== undefined && data.length > 0 && (
        <div className="table-scroll">
          <table id="claims">
            <thead>
              <tr>
                {COLUMNS.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.map((claim) => (
                <tr key={claim.id} data-status={claim.status}>
                  {COLUMNS.map((column) => (
                    <td key={column}>{String(claim[column])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
