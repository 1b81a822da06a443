// The AgentDojo slack pack's verdict arm (the rotating subset `npm test` runs: 21 pairs, both variants) as a `verdict-eval run` suite module:
//   npx verdict-eval run libs/storefront/dist/evaluation/agentdojo/agentdojo-slack.verdict.suite.js --out report.json
import { PackArm } from '../provenance-packs/pack-arm.js';
import { ROTATING_PAIRS, agentDojoPack } from './agentdojo-packs.js';
import { slackSuite } from './slack/slack-suite.js';

export default () => agentDojoPack(slackSuite(), PackArm.Verdict, ROTATING_PAIRS);
