// Runs the AgentDojo packs (every pair, both variants) in all three arms and prints AgentDojo's three figures
// per arm and variant, for the slack and the workspace suite:
//   npm run agentdojo-packs
import { agentDojoFigures, renderThreeArmTable } from '../provenance-packs/agentdojo-figures.js';
import { PACK_ARMS } from '../provenance-packs/pack-arm.js';
import { agentDojoPack } from './agentdojo-packs.js';
import type { AgentDojoSuite } from './agentdojo-suite.js';
import { ATTACK_VARIANTS } from './attack-variant.js';
import { slackSuite } from './slack/slack-suite.js';
import { workspaceSuite } from './workspace/workspace-suite.js';

async function printFigures<Env>(suite: AgentDojoSuite<Env>): Promise<void> {
  const rows = [];
  for (const arm of PACK_ARMS) {
    const report = (await agentDojoPack(suite, arm).run()).toReport();
    for (const variant of ATTACK_VARIANTS)
      rows.push({ arm: `${arm}/${variant}`, figures: agentDojoFigures(report, (id) => id.includes(`.${variant}:`)) });
  }
  const pairs = rows[0]!.figures.scenarios;
  process.stdout.write(
    `AgentDojo ${suite.name}: ${suite.corpus.user_tasks.length} user tasks, ${pairs} pairs per variant\n${renderThreeArmTable(rows)}\n\n`,
  );
}

await printFigures(slackSuite());
await printFigures(workspaceSuite());
