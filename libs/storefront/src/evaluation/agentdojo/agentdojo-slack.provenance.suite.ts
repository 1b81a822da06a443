// The AgentDojo slack pack's provenance arm (all 105 pairs, both variants) as a `verdict-eval run` suite module:
//   npx verdict-eval run libs/storefront/dist/evaluation/agentdojo/agentdojo-slack.provenance.suite.js --out report.json
import { PackArm } from '../provenance-packs/pack-arm.js';
import { agentDojoPack } from './agentdojo-packs.js';
import { slackSuite } from './slack/slack-suite.js';

export default () => agentDojoPack(slackSuite(), PackArm.Provenance);
