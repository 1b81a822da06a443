// The AgentDojo slack pack's quarantine arm (the subset `npm test` runs: a rotating fifth of the pairs, both
// variants) as a `verdict-eval run` suite module:
//   npx verdict-eval run libs/storefront/dist/evaluation/agentdojo/agentdojo-slack.quarantine.suite.js --out report.json
import { PackArm } from '../provenance-packs/pack-arm.js';
import { ROTATING_PAIRS, agentDojoPack } from './agentdojo-packs.js';
import { slackSuite } from './slack/slack-suite.js';

export default () => agentDojoPack(slackSuite(), PackArm.Quarantine, ROTATING_PAIRS);
