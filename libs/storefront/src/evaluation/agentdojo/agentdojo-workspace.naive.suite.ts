// The AgentDojo workspace pack's naive arm (the subset `npm test` runs: each user task against one injection task,
// rotating, both variants) as a `verdict-eval run` suite module:
//   npx verdict-eval run libs/storefront/dist/evaluation/agentdojo/agentdojo-workspace.naive.suite.js --out report.json
import { PackArm } from '../provenance-packs/pack-arm.js';
import { ONE_PAIR_PER_USER_TASK, agentDojoPack } from './agentdojo-packs.js';
import { workspaceSuite } from './workspace/workspace-suite.js';

export default () => agentDojoPack(workspaceSuite(), PackArm.Naive, ONE_PAIR_PER_USER_TASK);
