/**
 * The lab's single page. Data is rendered with `textContent` only: tool output is untrusted text.
 */
export const LAB_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verdict storefront lab</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 980px; margin: 2rem auto; padding: 0 1rem; color: #1d2330; }
  h1 { font-size: 1.5rem; margin-bottom: .25rem; }
  .lead { color: #4a5263; margin-top: 0; }
  button { font: inherit; padding: .5rem 1rem; border-radius: 6px; border: 1px solid #2f5bd3; background: #2f5bd3; color: white; cursor: pointer; }
  table { border-collapse: collapse; width: 100%; margin-top: 1rem; }
  th, td { border: 1px solid #d6dae3; padding: .5rem; text-align: left; vertical-align: top; }
  th { background: #f3f5f9; }
  .leaked { color: #b3261e; font-weight: 600; }
  .denied { color: #8a5a00; font-weight: 600; }
  .permitted { color: #1e7d32; font-weight: 600; }
  code, pre { font-size: 12px; white-space: pre-wrap; word-break: break-all; }
</style>
</head>
<body>
<h1>Verdict storefront lab</h1>
<p class="lead">The model proposes; the application decides. You are signed in as <strong>customer 72</strong> of tenant <strong>acme</strong>.</p>

<section id="cross-customer">
  <h2>Cross-customer order lookup</h2>
  <p>Customer 72 asks the assistant about order <strong>1001</strong>, which belongs to customer 91. The model emits
  <code>lookup_order({"orderId":1001})</code>. The same captured tool call goes through three implementations:
  a naive LangChain tool, a tool secured by hand with a scoped query, and a Verdict bound tool. Order <strong>1002</strong>
  is 72's own.</p>
  <button id="run-cross-customer" type="button">Run the comparison</button>
  <table id="cross-customer-results" hidden>
    <thead><tr><th>path</th><th>order 1001 (customer 91)</th><th>order 1002 (customer 72)</th></tr></thead>
    <tbody></tbody>
  </table>
  <h3 id="evidence-title" hidden>Verdict evidence for order 1001</h3>
  <pre id="evidence"></pre>
</section>

<section id="confirmation">
  <h2>Verified confirmation</h2>
  <p>The model proposes a refund on order 1002. Customer 72 approves that exact proposal. The same tool call with
  a changed amount is not covered; the approved call executes once; a replay is refused.</p>
  <button id="run-confirmation" type="button">Run the refund</button>
  <ol id="confirmation-steps" class="calls"></ol>
  <p id="confirmation-summary"></p>
</section>

<section id="budget">
  <h2>A permission is not a budget</h2>
  <p>Customer 72 may track their own order 1002, and the model asks the carrier three times. Each request is
  permitted by CASL; Verdict's semantic rate limit allows two shipment refreshes per customer and order per hour.</p>
  <button id="run-budget" type="button">Send three refreshes</button>
  <ol id="budget-calls" class="calls"></ol>
  <p id="budget-summary"></p>
</section>

<section id="duplicate-delivery">
  <h2>A new tool-call id is not a new operation</h2>
  <p>The transport redelivers one escalation of order 1002 under a second tool-call id. The operation is
  "customer 72 escalates order 1002", whatever its transport id: Verdict admits it to the executor once.</p>
  <button id="run-duplicate-delivery" type="button">Deliver the escalation twice</button>
  <ol id="duplicate-delivery-calls" class="calls"></ol>
  <p id="duplicate-delivery-summary"></p>
</section>

<section id="release">
  <h2>A provider name is not a trust boundary</h2>
  <p>Before the assistant answers, customer 72's profile is released to the model connection: display name, a synthetic
  e-mail (<code>customer72@acme.example</code>; the storefront stores none) and the orders' ids and statuses, with the
  e-mail redacted. One route is registered: <code>application:customer-profile → ollama@local-machine</code>. The same
  request goes to <code>ollama</code> on this machine and to <code>ollama</code> at a remote endpoint.</p>
  <button id="run-release" type="button">Release the profile twice</button>
  <table id="release-results" hidden>
    <thead><tr><th></th><th data-destination="local"></th><th data-destination="remote"></th></tr></thead>
    <tbody></tbody>
  </table>
</section>

<script>
  function renderCalls(listId, calls) {
    const list = document.getElementById(listId);
    list.replaceChildren();
    for (const call of calls) {
      const item = document.createElement('li');
      item.dataset.outcome = call.outcome;
      const outcome = document.createElement('strong');
      outcome.className = call.outcome === 'executed' ? 'permitted' : 'denied';
      outcome.textContent = call.outcome;
      const said = document.createElement('code');
      said.textContent = ' ' + call.toolCallId + ' → model saw: ' + call.modelSaw;
      item.append(outcome, said);
      list.append(item);
    }
  }
  document.getElementById('run-confirmation').addEventListener('click', async () => {
    const report = await (await fetch('/api/labs/confirmation')).json();
    const list = document.getElementById('confirmation-steps');
    list.replaceChildren();
    for (const step of report.steps) {
      const item = document.createElement('li');
      item.dataset.outcome = step.outcome;
      const outcome = document.createElement('strong');
      outcome.className = step.outcome === 'executed' || step.outcome === 'approved' ? 'permitted' : 'denied';
      outcome.textContent = step.outcome;
      const what = document.createElement('span');
      what.textContent = ' ' + step.step;
      item.append(outcome, what);
      list.append(item);
    }
    document.getElementById('confirmation-summary').textContent = 'Refunds made: ' + report.refundsMade;
  });
  document.getElementById('run-budget').addEventListener('click', async () => {
    const report = await (await fetch('/api/labs/budget')).json();
    renderCalls('budget-calls', report.calls);
    document.getElementById('budget-summary').textContent = 'Carrier requests made: ' + report.carrierRequests;
  });
  document.getElementById('run-duplicate-delivery').addEventListener('click', async () => {
    const report = await (await fetch('/api/labs/duplicate-delivery')).json();
    renderCalls('duplicate-delivery-calls', report.calls);
    document.getElementById('duplicate-delivery-summary').textContent = 'Support tickets for order 1002: ' + report.ticketsForOrder;
  });

  document.getElementById('run-release').addEventListener('click', async () => {
    const report = await (await fetch('/api/labs/release')).json();
    const table = document.getElementById('release-results');
    table.querySelectorAll('thead th[data-destination]').forEach((th, i) => (th.textContent = report.releases[i].destination));
    const rows = [
      ['outcome', 'outcome', (release) => release.outcome],
      ['payload', 'payload the model receives', (release) => JSON.stringify(release.payload, null, 2)],
      ['reason', 'reason (internal)', (release) => release.reason],
      ['evidence', 'stored evidence', (release) => JSON.stringify(release.evidence, null, 2)],
    ];
    const body = table.querySelector('tbody');
    body.replaceChildren();
    for (const [key, label, value] of rows) {
      const row = document.createElement('tr');
      row.dataset.row = key;
      const name = document.createElement('th');
      name.textContent = label;
      row.append(name);
      for (const release of report.releases) {
        const td = document.createElement('td');
        const content = document.createElement(key === 'outcome' ? 'div' : 'pre');
        if (key === 'outcome') {
          content.className = release.outcome;
          content.dataset.outcome = release.outcome;
        }
        content.textContent = value(release);
        td.append(content);
        row.append(td);
      }
      body.append(row);
    }
    table.hidden = false;
  });

  const paths = [['naive', 'Naive raw tool'], ['manual', 'Manually secured tool'], ['verdict', 'Verdict bound tool']];
  function cell(result) {
    const td = document.createElement('td');
    const outcome = document.createElement('div');
    outcome.className = result.outcome;
    outcome.dataset.outcome = result.outcome;
    outcome.textContent = result.outcome;
    const said = document.createElement('code');
    said.textContent = 'model saw: ' + result.modelSaw;
    td.append(outcome, said);
    return td;
  }
  document.getElementById('run-cross-customer').addEventListener('click', async () => {
    const response = await fetch('/api/labs/cross-customer');
    const report = await response.json();
    const [foreign, owned] = report.cases;
    const table = document.getElementById('cross-customer-results');
    const body = table.querySelector('tbody');
    body.replaceChildren();
    for (const [key, label] of paths) {
      const row = document.createElement('tr');
      row.dataset.path = key;
      const name = document.createElement('th');
      name.textContent = label;
      row.append(name, cell(foreign[key]), cell(owned[key]));
      body.append(row);
    }
    table.hidden = false;
    document.getElementById('evidence-title').hidden = false;
    document.getElementById('evidence').textContent = JSON.stringify(foreign.verdict.evidence, null, 2);
  });
</script>
</body>
</html>
`;
