// `@verdict/nestjs/testing/langchain`: the scripted chat models, apart from the rest of the testing kit so that
// contract suites and the testing module load without @langchain/core.
export * from '../scripted-chat-model.js';
export { InjectionFollowingChatModel } from '../injection-following-chat-model.js';
export type { InjectionFollowingChatModelOptions } from '../injection-following-chat-model.js';
