/**
 * The scripted chat model is public: it lives in `@verdict/nestjs/testing`. This module keeps the kit's
 * old import paths (`@verdict/testing-kit` and this file) working.
 *
 * @example
 * import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
 */
export { ScriptExhaustedError, ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
export type {
  BoundToolInfo,
  EmittedToolCall,
  ScriptStep,
  ScriptedChatModelOptions,
  ScriptedTextTurn,
  ScriptedToolCall,
  ScriptedToolCallTurn,
  ScriptedTurn,
  ScriptedTurnContext,
  ScriptedTurnFactory,
  ScriptedTurnRecord,
  ScriptedUsage,
  ShownToolMessage,
} from '@verdict/nestjs/testing/langchain';
