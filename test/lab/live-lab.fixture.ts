import { afterEach } from '@jest/globals';
import {
  type ChatCompletionHandler,
  type ChatCompletionsServer,
  startChatCompletionsServer,
} from '@verdict/testing-kit';
import request from 'supertest';
import { LiveLabProvider } from '../../apps/storefront-lab/src/live/live-lab-provider.js';
import { bootLab } from './lab-app.fixture.js';

/** The API key the live lab is configured with in the tests: it must never reach a page. */
export const LIVE_KEY = 'sk-lab-live-test-key-0123456789';

const servers: ChatCompletionsServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** The lab with the live provider pointed at a scripted OpenAI-compatible server on loopback (no retries). */
export async function liveLab(handler: ChatCompletionHandler) {
  const server = await startChatCompletionsServer(handler);
  servers.push(server);
  const live = LiveLabProvider.fromEnv({
    VERDICT_LIVE_PROVIDER: 'openai',
    VERDICT_LIVE_MODEL: 'scripted-lab-model',
    VERDICT_LIVE_BASE_URL: server.baseUrl,
    VERDICT_LIVE_API_KEY: LIVE_KEY,
    VERDICT_LIVE_MAX_RETRIES: '0',
  });
  const { app } = await bootLab({ live });
  return { http: request(app.getHttpServer()), server };
}
