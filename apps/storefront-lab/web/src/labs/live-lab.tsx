import { useEffect, useState } from 'react';
import type { LiveModeView, LiveRunView, LiveRuntimeRunView } from '../api';
import { labApi } from '../api';
import { ActorPicker, CUSTOMER_72 } from '../components/actor-picker';
import { Comparison } from '../components/comparison';
import { Json } from '../components/json';
import { Status } from '../components/status';
import { useAction } from '../use-action';
import { INJECTED_REVIEW } from './provenance-lab';

/** Live model: the configured chat model proposes the call; the same comparison replays its proposal. */
export function LiveLab() {
  const mode = useAction(labApi.liveMode);
  const { run } = mode;
  useEffect(() => void run(), [run]);
  return (
    <>
      <p className="lede">
        The other labs script the model. Here a real chat model — the one <code>verdict-eval live</code> is configured
        with — reads the conversation and proposes the call; the lab then replays exactly that proposal through the
        naive tool, the tool secured by hand and the Verdict bound tool. Whether the model takes the bait is its
        business; what each path does with the proposal is the application's.
      </p>
      <Status loading={mode.loading} error={mode.error} />
      {mode.data !== undefined &&
        (mode.data.configured ? <LiveScenarios mode={mode.data} /> : <LiveOff mode={mode.data} />)}
    </>
  );
}

/** No provider: what is missing and how to configure one. No run button: there is nothing to run against. */
function LiveOff({ mode }: { mode: LiveModeView }) {
  const v = mode.variables;
  return (
    <section className="live-off" id="live-off" aria-labelledby="live-off-title">
      <h3 id="live-off-title">Live mode is off: no model provider is configured</h3>
      <p>
        The configuration loader of <code>verdict-eval live</code> says:{' '}
        <span data-testid="live-problem">{mode.problem}</span>
      </p>
      <p>
        Set the same environment variables live trials use, then restart <code>npm start</code>. A local Ollama (no
        key):
      </p>
      <pre>
        <code>{`${v.provider}=openai ${v.model}=llama3.1:8b ${v.baseUrl}=http://127.0.0.1:11434/v1 npm start`}</code>
      </pre>
      <p>A hosted model:</p>
      <pre>
        <code>{`${v.provider}=openai ${v.model}=gpt-4.1-mini ${v.apiKey}=… npm start
${v.provider}=anthropic ${v.model}=claude-sonnet-4-5 ${v.apiKey}=… npm start`}</code>
      </pre>
      <p>
        The key stays on the server: the page only ever sees the provider kind and the model id. All variables:{' '}
        <a href="/docs/live-trials.md">live trials, §3 Providers</a>.
      </p>
    </section>
  );
}

/** The runtimes the live lab can drive (the server's `LiveRuntime`). */
const RUNTIMES = [
  { value: 'langchain', label: 'LangChain createAgent' },
  { value: 'ai-sdk', label: 'Vercel AI SDK generateText' },
  { value: 'openai-agents', label: 'OpenAI Agents Runner' },
] as const;

function LiveScenarios({ mode }: { mode: LiveModeView }) {
  const [actor, setActor] = useState(CUSTOMER_72);
  const [request, setRequest] = useState('Show me order 1001, please.');
  const [review, setReview] = useState(INJECTED_REVIEW);
  const [runtime, setRuntime] = useState<string>(RUNTIMES[0].value);
  const cross = useAction(labApi.liveCrossCustomer);
  const throughRuntime = useAction(labApi.liveRuntimeCrossCustomer);
  const injected = useAction(labApi.liveInjectedReview);
  return (
    <>
      <p className="status ok" role="status" id="live-provider">
        Live model: <strong>{mode.provider?.model}</strong> ({mode.provider?.kind}). Every run calls it; a provider that
        fails is reported as a provider error, never as a pass or a failure.
      </p>
      <ActorPicker id="live" actor={actor} onChange={setActor} />
      <section className="case" aria-labelledby="live-cross-title" data-live="cross-customer">
        <h3 id="live-cross-title">Cross-customer: the model proposes lookup_order</h3>
        <form
          className="controls"
          onSubmit={(event) => {
            event.preventDefault();
            void cross.run({ actor, request });
          }}
        >
          <label className="wide">
            Customer's request (untrusted)
            <input id="live-request" value={request} onChange={(event) => setRequest(event.target.value)} />
          </label>
          <button type="submit" id="run-live-cross-customer" disabled={cross.loading}>
            Ask the model
          </button>
        </form>
        <Status loading={cross.loading} error={cross.error} />
        {cross.data !== undefined && <LiveResult result={cross.data} />}
      </section>
      <section className="case" aria-labelledby="live-runtime-title" data-live="runtime">
        <h3 id="live-runtime-title">The same request through an agent runtime</h3>
        <p className="muted">
          The model drives the chosen runtime's own loop, and <code>lookup_order</code> is Verdict's tool for that
          runtime: Verdict decides each call there, and the model reads the order or the public answer.
        </p>
        <form
          className="controls"
          onSubmit={(event) => {
            event.preventDefault();
            void throughRuntime.run({ actor, request, runtime });
          }}
        >
          <label>
            Runtime
            <select id="live-runtime" value={runtime} onChange={(event) => setRuntime(event.target.value)}>
              {RUNTIMES.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" id="run-live-runtime" disabled={throughRuntime.loading}>
            Run the customer's request through it
          </button>
        </form>
        <Status loading={throughRuntime.loading} error={throughRuntime.error} />
        {throughRuntime.data !== undefined && <LiveRuntimeResult result={throughRuntime.data} />}
      </section>
      <section className="case" aria-labelledby="live-review-title" data-live="injected-review">
        <h3 id="live-review-title">Injected review: the model reads the reviews and proposes a refund</h3>
        <form
          className="controls"
          onSubmit={(event) => {
            event.preventDefault();
            void injected.run({ actor, orderId: 1002, amountCents: 500, review });
          }}
        >
          <label className="wide">
            A product review of order 1002 (untrusted, anyone can write it)
            <textarea id="live-review" rows={3} value={review} onChange={(event) => setReview(event.target.value)} />
          </label>
          <button type="submit" id="run-live-injected-review" disabled={injected.loading}>
            Ask the model for a 500-cent refund
          </button>
        </form>
        <Status loading={injected.loading} error={injected.error} />
        {injected.data !== undefined && <LiveResult result={injected.data} />}
      </section>
    </>
  );
}

/** A live run: a provider error, no proposal, or the proposal and the comparison that replayed it. */
function LiveResult({ result }: { result: LiveRunView }) {
  if (result.outcome === 'provider_error') return <ProviderError result={result} />;
  return (
    <div className="live-result" data-outcome={result.outcome}>
      <p className="muted" data-testid="live-message">
        {result.message}
      </p>
      {result.proposal !== null && (
        <div className="live-proposal">
          <span>
            The model proposed <code>{result.proposal.tool}</code>
          </span>
          <Json value={result.proposal.arguments} label="the live proposal" />
        </div>
      )}
      {result.comparison !== null && <Comparison result={result.comparison} titled />}
    </div>
  );
}

/** A run through a runtime: a provider error, or each call with Verdict's decision, what the model read, its answer. */
function LiveRuntimeResult({ result }: { result: LiveRuntimeRunView }) {
  if (result.outcome === 'provider_error') return <ProviderError result={result} />;
  return (
    <div className="live-result" data-outcome={result.outcome} data-runtime={result.runtime}>
      <p className="muted" data-testid="live-runtime-message">
        {result.message}
      </p>
      {result.calls.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="The runtime's calls">
          <table className="calls">
            <thead>
              <tr>
                <th>Call</th>
                <th>Verdict</th>
                <th>The model read</th>
              </tr>
            </thead>
            <tbody>
              {result.calls.map((call, index) => (
                <tr key={index} data-decision={call.decision}>
                  <td>
                    <code>{call.tool}</code> <Json value={call.arguments} label="the call's arguments" />
                  </td>
                  <td>{call.decision}</td>
                  <td>
                    <code>{call.modelRead}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {result.answer !== '' && (
        <p data-testid="live-runtime-answer">
          The model answered: <q>{result.answer}</q>
        </p>
      )}
    </div>
  );
}

/** A provider error: its class and the lab's fixed description, neither a pass nor a failure. */
function ProviderError({ result }: { result: { errorClass: string | null; message: string } }) {
  return (
    <p className="status provider-error" role="alert" data-testid="provider-error" data-error-class={result.errorClass}>
      {result.message}
    </p>
  );
}
