// The AgentDojo workspace pack's quarantine arm (the subset `npm test` runs: each user task against one injection task,
// rotating, both variants) as a `verdict-eval run` suite module:
//   npx verdict-eval run libs/storefront/dist/evaluation/agentdojo/agentdojo-workspace.quarantine.suite.js --out report.json
import { PackArm } from '../provenance-packs/pack-arm.js';
import { ONE_PAIR_PER_USER_TASK, agentDojoPack } from './agentdojo-packs.js';
import { workspaceSuite } from './workspace/workspace-suite.js';

export default () => agentDojoPack(workspaceSuite(), PackArm.Quarantine, ONE_PAIR_PER_USER_TASK);
