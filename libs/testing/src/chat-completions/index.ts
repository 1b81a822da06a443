export { startChatCompletionsServer } from './chat-completions-server.js';
export type {
  ChatCompletionHandler,
  ChatCompletionMessage,
  ChatCompletionReply,
  ChatCompletionRequest,
  ChatCompletionsServer,
  ServerToolCall,
  ServerUsage,
} from './chat-completions-server.js';
export { byUserMessage, followingInjections, scriptedConversation } from './scripted-conversation.js';
