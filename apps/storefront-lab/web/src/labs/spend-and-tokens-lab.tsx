import { useEffect, useState } from 'react';
import capabilitySource from '../../../src/budgets/goodwill-credit.capabilities.ts?raw';
import modelBudgetsSource from '../../../src/budgets/lab-model-budgets.ts?raw';
import { type AssistantRunView, type BudgetPageView, type BudgetStandingView, labApi } from '../api';
import { ActorPicker, CUSTOMER_72 } from '../components/actor-picker';
import { CodeView } from '../components/code-view';
import { RunView } from '../components/run-view';
import { Status } from '../components/status';
import { useAction } from '../use-action';

/** Spend and token budgets: what each budget of the actor has left, and what happens past it. */
export function SpendAndTokensLab() {
  const [actor, setActor] = useState(CUSTOMER_72);
  const [orderId, setOrderId] = useState('1002');
  const [amount, setAmount] = useState('800');
  const [credits, setCredits] = useState('3');
  const [question, setQuestion] = useState('When will my order ship?');
  const [questions, setQuestions] = useState('6');
  const standing = useAction(labApi.budgets);
  const grant = useAction(labApi.goodwillCredits);
  const ask = useAction(labApi.askAssistant);
  const [latest, setLatest] = useState<BudgetPageView | undefined>(undefined);
  useEffect(() => {
    void standing.run(actor).then((view) => view !== undefined && setLatest(view));
  }, [actor, standing.run]);
  const loading = standing.loading || grant.loading || ask.loading;
  return (
    <>
      <p className="lede">
        A spend budget caps what a capability may spend: the assistant may give goodwill credit without asking anyone,
        but at most €20 per customer per day. Token and cost budgets cap what the agent's model calls may use — the
        quarantine lab's bill readings included: each call reserves its estimate first and gives back what the
        provider's usage did not take. Past a spend budget the call is refused; past a model budget the run stops before
        the model is called.
      </p>
      <div className="controls">
        <ActorPicker id="budgets" actor={actor} onChange={setActor} />
      </div>
      <Standing budgets={latest?.budgets} />
      <form
        className="controls"
        onSubmit={(event) => {
          event.preventDefault();
          const body = { actor, orderId: Number(orderId), amountCents: Number(amount), count: Number(credits) };
          void grant.run(body).then((view) => view !== undefined && setLatest(view));
        }}
      >
        <label>
          Order
          <input inputMode="numeric" value={orderId} onChange={(event) => setOrderId(event.target.value)} />
        </label>
        <label>
          Credit (cents)
          <input inputMode="numeric" value={amount} onChange={(event) => setAmount(event.target.value)} />
        </label>
        <label>
          Proposals
          <input inputMode="numeric" value={credits} onChange={(event) => setCredits(event.target.value)} />
        </label>
        <button type="submit" id="run-goodwill" disabled={loading}>
          Give goodwill credit
        </button>
      </form>
      <form
        className="controls"
        onSubmit={(event) => {
          event.preventDefault();
          void ask
            .run({ actor, question, count: Number(questions) })
            .then((view) => view !== undefined && setLatest(view));
        }}
      >
        <label className="wide">
          Question to the assistant
          <input value={question} onChange={(event) => setQuestion(event.target.value)} />
        </label>
        <label>
          Times
          <input
            id="assistant-times"
            inputMode="numeric"
            value={questions}
            onChange={(event) => setQuestions(event.target.value)}
          />
        </label>
        <button type="submit" id="run-assistant" disabled={loading}>
          Ask the assistant
        </button>
      </form>
      <Status loading={loading} error={grant.error ?? ask.error ?? standing.error} />
      <div className="result-with-code">
        <div>
          {latest?.credits != null && <RunView run={latest.credits} />}
          {latest?.assistant != null && <AssistantRuns runs={latest.assistant} />}
        </div>
        <aside>
          <CodeView title="The spend budget: orders.goodwill_credit" source={capabilitySource} from="  @Capability({" />
          <CodeView
            title="The model budgets (module option modelBudgets)"
            source={modelBudgetsSource}
            from="export const LAB_MODEL_BUDGETS"
          />
        </aside>
      </div>
    </>
  );
}

/** Every budget of the actor: limit, used, remaining, and what happens when a call would pass it. */
function Standing({ budgets }: { budgets: readonly BudgetStandingView[] | undefined }) {
  if (budgets === undefined) return null;
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Budgets">
      <table id="budgets">
        <thead>
          <tr>
            <th scope="col">Budget</th>
            <th scope="col">Per</th>
            <th scope="col">Limit</th>
            <th scope="col">Used</th>
            <th scope="col">Remaining</th>
            <th scope="col">Resets</th>
            <th scope="col">When exceeded</th>
          </tr>
        </thead>
        <tbody>
          {budgets.map((budget) => (
            <tr key={budget.name} data-budget={budget.name} data-remaining={budget.remaining}>
              <th scope="row">
                <code>{budget.name}</code> <span className="muted">({budget.measure})</span>
              </th>
              <td>{budget.per}</td>
              <td>{amount(budget.limit, budget.unit)}</td>
              <td data-testid="used">{amount(budget.used, budget.unit)}</td>
              <td data-testid="remaining">{amount(budget.remaining, budget.unit)}</td>
              <td>{new Date(budget.resetAt).toISOString().slice(0, 16).replace('T', ' ')} UTC</td>
              <td>{budget.whenExceeded}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The assistant's runs: answered (reserved, then only the usage spent) or stopped before the model call. */
function AssistantRuns({ runs }: { runs: readonly AssistantRunView[] }) {
  return (
    <ol className="assistant-runs" id="assistant-runs">
      {runs.map((run, index) => (
        <li key={index} data-outcome={run.outcome}>
          <span className={`badge big ${run.outcome === 'answered' ? 'executed' : 'refused'}`}>{run.outcome}</span>{' '}
          {run.outcome === 'answered' ? (
            <>
              reserved {run.reservedTokens} tokens, the provider reported {run.usedTokens}: {run.usedTokens} spent,{' '}
              {run.reservedTokens - run.usedTokens!} released. <span className="muted">“{run.answer}”</span>
            </>
          ) : (
            <>
              <code>{run.stoppedBy?.code}</code> ({run.stoppedBy?.budget}): the estimate of {run.reservedTokens} tokens
              did not fit, so the run stopped before the model call (model calls: {run.modelCalls}) and nothing was
              spent.
            </>
          )}
        </li>
      ))}
    </ol>
  );
}

function amount(value: number, unit: string): string {
  if (unit === 'cents') return `€${(value / 100).toFixed(2)}`;
  if (unit === 'millicents') return `${(value / 1000).toFixed(3)} ¢`;
  return `${value.toLocaleString('en')} ${unit}`;
}
