import { useEffect, useState } from 'react';
import { labApi } from './api';
import { Status } from './components/status';
import { LABS, LAB_GROUPS } from './labs/catalog';
import { useAction } from './use-action';

const DOCS = [
  { href: '/docs/architecture.md', label: 'Architecture' },
  { href: '/docs/options.md', label: 'Options' },
  { href: '/docs/enforcement-matrix.md', label: 'Enforcement matrix' },
];

function currentLab(): string {
  const id = window.location.hash.replace(/^#\/?/, '');
  return LABS.some((lab) => lab.id === id) ? id : LABS[0].id;
}

/** The lab shell: header with the labs and the docs, the selected lab, and the session reset. */
export function App() {
  const [labId, setLabId] = useState(currentLab);
  const [generation, setGeneration] = useState(0);
  const reset = useAction(labApi.reset);
  useEffect(() => {
    const onHash = () => setLabId(currentLab());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const lab = LABS.find((candidate) => candidate.id === labId)!;
  const Lab = lab.component;
  return (
    <>
      <a className="skip" href="#main">
        Skip to the lab
      </a>
      <header className="top">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            ✓
          </span>
          <span>
            <strong>Verdict</strong> storefront lab
          </span>
        </div>
        <nav aria-label="Documentation" className="docs">
          {DOCS.map((doc) => (
            <a key={doc.href} href={doc.href}>
              {doc.label}
            </a>
          ))}
        </nav>
        <button
          type="button"
          id="reset-session"
          className="secondary"
          disabled={reset.loading}
          onClick={() => void reset.run().then((done) => done !== undefined && setGeneration((n) => n + 1))}
        >
          Reset my session
        </button>
      </header>
      <nav aria-label="Labs" className="labs">
        <ul className="groups">
          {LAB_GROUPS.map((group) => (
            <li key={group.title} className="group">
              <span className="group-title" id={`group-${group.title.replace(/\W+/g, '-')}`}>
                {group.title}
              </span>
              <ul aria-labelledby={`group-${group.title.replace(/\W+/g, '-')}`}>
                {group.labs.map((id) => {
                  const candidate = LABS.find((entry) => entry.id === id)!;
                  return (
                    <li key={id}>
                      <a href={`#/${id}`} title={candidate.shows} aria-current={id === labId ? 'page' : undefined}>
                        {candidate.title}
                      </a>
                    </li>
                  );
                })}
              </ul>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <h1>{lab.title}</h1>
        <h2 className="subtitle">{lab.shows}</h2>
        <Status loading={reset.loading} error={reset.error} />
        {generation > 0 && !reset.loading && (
          <p className="status ok" role="status" id="reset-done">
            Session reset: the storefront is back to its seed.
          </p>
        )}
        <Lab key={`${labId}-${generation}`} />
      </main>
      <footer>Synthetic data only. Your runs live in your own browser session: nobody else sees them.</footer>
    </>
  );
}
