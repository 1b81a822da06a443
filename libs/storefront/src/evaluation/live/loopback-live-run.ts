// A complete live run of the storefront live pack against the loopback chat-completions server, no model needed:
//   npm run build && node libs/storefront/dist/evaluation/live/loopback-live-run.js [report.json] [trials]
// The real ChatOpenAI client talks HTTP to a scripted, injection-following "model" on 127.0.0.1.
import 'reflect-metadata';
import { LiveProvider, LiveReport, runLiveSuite } from '@verdict/evaluation/live';
import { startChatCompletionsServer } from '@verdict/testing-kit';
import { writeFileSync } from 'node:fs';
import { storefrontLoopbackModel } from './loopback-scripts.js';
import { storefrontLivePack } from './storefront-live-pack.js';

const [out = 'storefront-live-loopback.json', trials = '30'] = process.argv.slice(2);
const server = await startChatCompletionsServer(storefrontLoopbackModel());
try {
  const provider = LiveProvider.fromEnv({
    VERDICT_LIVE_PROVIDER: 'openai',
    VERDICT_LIVE_MODEL: 'loopback-injection-following',
    VERDICT_LIVE_BASE_URL: server.baseUrl,
    VERDICT_LIVE_TEMPERATURE: '0',
  });
  const report = await runLiveSuite(storefrontLivePack(), { provider, trialsPerCase: Number(trials), control: true });
  writeFileSync(out, LiveReport.toJson(report));
  console.log(`${report.trials.length} trials, pack ${report.pack.status}: report written to ${out}`);
} finally {
  await server.close();
}
