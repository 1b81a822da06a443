import packSource from '../../../../../libs/storefront/src/evaluation/storefront-attack-pack.ts?raw';
import { labApi } from '../api';
import { CodeView } from '../components/code-view';
import { Status } from '../components/status';
import { useAction } from '../use-action';

/** Evaluation: the storefront attack pack run from the page, scored per purpose, compared with its baseline. */
export function EvaluationLab() {
  const { data, loading, error, run } = useAction(labApi.evaluation);
  return (
    <>
      <p className="lede">
        The storefront attack pack is what <code>npm test</code> runs against its checked-in baseline: attack cases (the
        model was manipulated; Verdict must refuse) and utility cases (the legitimate path must still work), each on a
        fresh sandbox. Run it here, see the scores per purpose and the diff against the baseline, and download the
        report <code>verdict-eval run --out</code> writes (fingerprints only, no raw input).
      </p>
      <div className="controls">
        <button type="button" id="run-evaluation" disabled={loading} onClick={() => void run()}>
          Run the attack pack
        </button>
        {data !== undefined && (
          <a id="download-report" href="/api/labs/evaluation/report" download="storefront-attack-pack.report.json">
            Download the report (JSON)
          </a>
        )}
      </div>
      <Status loading={loading} error={error} />
      <div className="result-with-code">
        <div>
          {data !== undefined && (
            <div className="evaluation" data-blocking={data.blocking}>
              <p className="summary" data-testid="summary">
                {data.suite}: {data.blocking ? 'blocking changes against the baseline' : 'no blocking change'}
              </p>
              <table id="scores">
                <caption>Scores per purpose</caption>
                <thead>
                  <tr>
                    <th scope="col">purpose</th>
                    <th scope="col">passed</th>
                    <th scope="col">failed</th>
                    <th scope="col">errors</th>
                    <th scope="col">pending</th>
                  </tr>
                </thead>
                <tbody>
                  {data.scores.map((score) => (
                    <tr key={score.purpose} data-purpose={score.purpose}>
                      <th scope="row">{score.purpose}</th>
                      <td data-testid="passed">{score.passed}</td>
                      <td>{score.failed}</td>
                      <td>{score.errors}</td>
                      <td>{score.pending}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <h3>Against the baseline</h3>
              <pre
                className="comparison-output"
                tabIndex={0}
                aria-label="Comparison with the baseline"
                id="baseline-diff"
              >
                {data.rendered}
              </pre>
              <details>
                <summary>Every case ({data.cases.length})</summary>
                <ul className="cases">
                  {data.cases.map((item) => (
                    <li key={item.id} data-status={item.status}>
                      <span className={`badge ${item.status === 'passed' ? 'permit' : 'deny'}`}>{item.status}</span>{' '}
                      <code>{item.id}</code> <span className="muted">({item.purpose})</span>
                    </li>
                  ))}
                </ul>
              </details>
            </div>
          )}
        </div>
        <aside>
          <CodeView
            title="The storefront attack pack"
            source={packSource}
            from="export function storefrontAttackPack"
          />
        </aside>
      </div>
    </>
  );
}
