import { LiveProvider } from '@verdict/evaluation/live';
import {
  startChatCompletionsServer,
  type ChatCompletionHandler,
  type ChatCompletionsServer,
} from '@verdict/testing-kit';

/** The API key the loopback providers are configured with (a report or a log must never hold it). */
export const LOOPBACK_API_KEY = 'sk-loopback-secret-key';

const started: ChatCompletionsServer[] = [];

/**
 * A loopback OpenAI-compatible server playing `handler`, and the real ChatOpenAI client configured for it by env
 * (no retries, temperature 0; `env` overrides). Tests close them with `closeLoopbackServers()` (an `afterEach`).
 */
export async function startLoopbackProvider(handler: ChatCompletionHandler, env: Record<string, string> = {}) {
  const server = await startChatCompletionsServer(handler);
  started.push(server);
  const provider = LiveProvider.fromEnv({
    VERDICT_LIVE_PROVIDER: 'openai',
    VERDICT_LIVE_MODEL: 'loopback-scripted',
    VERDICT_LIVE_BASE_URL: server.baseUrl,
    VERDICT_LIVE_API_KEY: LOOPBACK_API_KEY,
    VERDICT_LIVE_TEMPERATURE: '0',
    VERDICT_LIVE_MAX_RETRIES: '0',
    ...env,
  });
  return { server, provider };
}

/** Closes every server `startLoopbackProvider` started. */
export async function closeLoopbackServers(): Promise<void> {
  for (const server of started.splice(0)) await server.close();
}
