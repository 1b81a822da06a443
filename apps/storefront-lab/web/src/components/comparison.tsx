import type { ComparisonCaseView } from '../api';
import { CallRow } from './call-row';
import { dispositionWords } from '../decision-words';

const PATH_LABEL = { naive: 'Naive tool', manual: 'Secured by hand', verdict: 'Verdict bound tool' } as const;

/** One comparison case: each path's outcome, whether it was safe, and its call in the four columns. */
export function Comparison({ result, titled = false }: { result: ComparisonCaseView; titled?: boolean }) {
  return (
    <div className="comparison" data-case={result.case}>
      {titled && <h3>{result.title}</h3>}
      <p className="added">
        <strong>What Verdict added here:</strong> {result.verdictAdded}
      </p>
      <ul className="paths">
        {result.paths.map((path) => (
          <li key={path.path} data-path={path.path} className={path.safe ? 'safe' : 'unsafe'}>
            <span className="path-name">{PATH_LABEL[path.path]}</span>
            <span className={`badge big ${path.safe ? 'permit' : 'leaked'}`} data-testid="path-outcome">
              {dispositionWords(path.outcome)}
            </span>
            <span className="muted">{path.safe ? 'safe' : 'unsafe'}</span>
          </li>
        ))}
      </ul>
      {result.paths.map((path) => (
        <CallRow key={path.path} call={path.call} label={PATH_LABEL[path.path]} level={4} />
      ))}
    </div>
  );
}
