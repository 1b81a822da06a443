import { describe, expect, it } from '@jest/globals';
import * as published from '@verdict/nestjs/testing/langchain';
import * as kit from '@verdict/testing-kit';
import * as legacyPath from './scripted-chat-model.js';

describe("the kit's scripted chat model", () => {
  it('is the public one of @verdict/nestjs/testing, through the kit and through its old module path', () => {
    for (const source of [kit, legacyPath]) {
      expect(source.ScriptedChatModel).toBe(published.ScriptedChatModel);
      expect(source.ScriptExhaustedError).toBe(published.ScriptExhaustedError);
    }
  });
});
