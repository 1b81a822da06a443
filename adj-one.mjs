import { agentDojoPack } from '/work/wt/agentdojo/libs/storefront/dist/evaluation/agentdojo/agentdojo-packs.js';
import { slackSuite } from '/work/wt/agentdojo/libs/storefront/dist/evaluation/agentdojo/slack/slack-suite.js';
const [arm, user, inj] = process.argv.slice(2);
const pack = agentDojoPack(slackSuite(), arm, { userTasks: t => t.id === user, injectionTasks: t => t.id === inj });
const t = Date.now();
const r = (await pack.run()).toReport();
console.log((Date.now()-t)/1000);
for (const c of r.cases) console.log(JSON.stringify(c));
