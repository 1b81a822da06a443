import { afterEach, describe, it } from '@jest/globals';
import { setTracingDisabled } from '@openai/agents';
import { aiSdkDriver, scriptedAiSdkModels } from './ai-sdk.driver.js';
import { type ContractApp, bootContractApp } from './contract-app.js';
import { CONTRACT_SCENARIOS } from './contract-scenarios.js';
import { langChainDriver, scriptedLangChainModels } from './langchain.driver.js';
import { agentsDriver, scriptedAgentsModels } from './openai-agents.driver.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

const apps: ContractApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.moduleRef.close();
});

const drivers = [
  langChainDriver(scriptedLangChainModels, 'scripted model'),
  aiSdkDriver(scriptedAiSdkModels, 'scripted model'),
  agentsDriver(scriptedAgentsModels, 'scripted model'),
];

describe.each(drivers.map((driver) => [driver.name, driver] as const))('runtime contract: %s', (_name, driver) => {
  it.each(CONTRACT_SCENARIOS.map((scenario) => [scenario.title, scenario] as const))('%s', async (_title, scenario) => {
    const app = await bootContractApp();
    apps.push(app);
    await scenario.run(driver, app);
  });
});
