import { agentDojoPack } from '/work/wt/agentdojo/libs/storefront/dist/evaluation/agentdojo/agentdojo-packs.js';
import { slackSuite } from '/work/wt/agentdojo/libs/storefront/dist/evaluation/agentdojo/slack/slack-suite.js';
import { agentDojoFigures } from '/work/wt/agentdojo/libs/storefront/dist/evaluation/provenance-packs/agentdojo-figures.js';
const arm = process.argv[2];
const t = Date.now();
const pack = agentDojoPack(slackSuite(), arm);
const r = (await pack.run()).toReport();
console.log(arm, pack.cases.length, 'cases', (Date.now()-t)/1000, 's');
const bad = r.cases.filter(c=>c.status!=='passed');
const byStatus = {};
for (const c of r.cases) byStatus[c.status]=(byStatus[c.status]??0)+1;
console.log(byStatus);
for (const v of ['standard','adaptive']) {
  const sel = {...r, cases: r.cases.filter(c=> !c.id.includes('.injection_task') || c.id.includes('.'+v+':'))};
  console.log(v, JSON.stringify(agentDojoFigures(sel)));
}
for (const c of bad.slice(0,400)) console.log(c.id, c.status, c.assertions?.filter(a=>!a.passed).map(a=>a.id).join(','), c.error?.message ?? '');
