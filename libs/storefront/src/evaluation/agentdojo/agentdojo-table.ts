// Runs the AgentDojo packs (every pair, both variants) in all four arms and prints AgentDojo's three figures
// per arm and variant, for the slack and the workspace suite, then the user tasks each arm lost (clean, and
// under attack with the number of attacked pairs lost), and the quarantine arm's runs that asked the user:
//   npm run agentdojo-packs
import { agentDojoFigures, renderThreeArmTable } from '../provenance-packs/agentdojo-figures.js';
import { AGENTDOJO_ARMS, PackArm } from '../provenance-packs/pack-arm.js';
import { agentDojoPack } from './agentdojo-packs.js';
import type { AgentDojoSuite } from './agentdojo-suite.js';
import { ATTACK_VARIANTS } from './attack-variant.js';
import { ConfirmationTally } from './confirmation-tally.js';
import { lostUserTasks, renderLostUserTasks } from './lost-user-tasks.js';
import { slackSuite } from './slack/slack-suite.js';
import { workspaceSuite } from './workspace/workspace-suite.js';

async function printFigures<Env>(suite: AgentDojoSuite<Env>): Promise<void> {
  const rows = [];
  const losses = [];
  const tally = new ConfirmationTally();
  for (const arm of AGENTDOJO_ARMS) {
    const report = (
      await agentDojoPack(suite, arm, {}, arm === PackArm.Quarantine ? tally : undefined).run()
    ).toReport();
    for (const variant of ATTACK_VARIANTS) {
      const attacked = (id: string) => id.includes(`.${variant}:`);
      rows.push({ arm: `${arm}/${variant}`, figures: agentDojoFigures(report, attacked) });
      losses.push(`${`${arm}/${variant}`.padEnd(22)}${renderLostUserTasks(lostUserTasks(report, attacked))}`);
    }
  }
  const pairs = rows[0]!.figures.scenarios;
  process.stdout.write(
    `AgentDojo ${suite.name}: ${suite.corpus.user_tasks.length} user tasks, ${pairs} pairs per variant\n${renderThreeArmTable(rows)}\n` +
      `user tasks lost (under attack: pairs lost)\n${losses.join('\n')}\n` +
      `quarantine: ${tally.render()}\n\n`,
  );
}

await printFigures(slackSuite());
await printFigures(workspaceSuite());
