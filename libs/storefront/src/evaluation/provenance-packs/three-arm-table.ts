// Runs the provenance packs in all three arms and prints AgentDojo's figures side by side:
//   npm run provenance-packs
import { agentDojoFigures, renderThreeArmTable } from './agentdojo-figures.js';
import { PACK_ARMS } from './pack-arm.js';
import { provenancePacks } from './provenance-packs.js';

const rows = [];
for (const arm of PACK_ARMS) {
  const report = (await provenancePacks(arm).run()).toReport();
  rows.push({ arm, figures: agentDojoFigures(report) });
}
const scenarios = rows[0]!.figures.scenarios;
process.stdout.write(`Provenance packs: ${scenarios} scenarios, 3 runs each per arm\n${renderThreeArmTable(rows)}\n`);
