import { Module } from '@nestjs/common';
import { InMemoryEvidenceRecorder } from '@verdict/nestjs';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { AppModule } from './app.module.js';

/** What the operator CLI runs against: `npx verdict --module ./dist/verdict-cli.module.js evidence verify`. */
@Module({
  imports: [AppModule.register({ model: new ScriptedChatModel([]), evidence: new InMemoryEvidenceRecorder() })],
})
export default class VerdictCli {}
