import { afterEach, describe, it } from '@jest/globals';
import { setTracingDisabled } from '@openai/agents';
import { aiSdkDriver, loopbackAiSdkModels, scriptedAiSdkModels } from './ai-sdk.driver.js';
import { type ContractApp, bootContractApp } from './contract-app.js';
import { CONTRACT_SCENARIOS } from './contract-scenarios.js';
import { langChainDriver, loopbackLangChainModels, scriptedLangChainModels } from './langchain.driver.js';
import { agentsDriver, loopbackAgentsModels, scriptedAgentsModels } from './openai-agents.driver.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

const apps: ContractApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.moduleRef.close();
});

/**
 * Each runtime twice: with a scripted in-process model, and with its real provider client (HTTP, tool-call parsing)
 * pointed at a scripted chat-completions server on 127.0.0.1. Nothing leaves the machine.
 */
const drivers = [
  langChainDriver(scriptedLangChainModels, 'scripted model'),
  aiSdkDriver(scriptedAiSdkModels, 'scripted model'),
  agentsDriver(scriptedAgentsModels, 'scripted model'),
  langChainDriver(loopbackLangChainModels, '@langchain/openai ChatOpenAI on loopback'),
  aiSdkDriver(loopbackAiSdkModels, '@ai-sdk/openai chat model on loopback'),
  agentsDriver(loopbackAgentsModels, 'Agents OpenAI chat-completions model on loopback'),
];

describe.each(drivers.map((driver) => [driver.name, driver] as const))('runtime contract: %s', (_name, driver) => {
  it.each(CONTRACT_SCENARIOS.map((scenario) => [scenario.title, scenario] as const))('%s', async (_title, scenario) => {
    const app = await bootContractApp();
    apps.push(app);
    await scenario.run(driver, app);
  });
});
