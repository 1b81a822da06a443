// The AgentDojo live pack (workspace's user_task_7 against two injections, quarantine arm) as a `verdict-eval live`
// suite module:
//   VERDICT_LIVE_PROVIDER=openai VERDICT_LIVE_MODEL=… npx verdict-eval live libs/storefront/dist/evaluation/agentdojo/live/agentdojo-live-pack.suite.js --control --out live.json
import 'reflect-metadata';
import { agentDojoLivePack } from './agentdojo-live-pack.js';

export default () => agentDojoLivePack();
