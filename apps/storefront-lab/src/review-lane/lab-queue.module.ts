import { Module } from '@nestjs/common';
import { InProcessDeferredQueue } from '@verdict/nestjs';

/** The session's deferred queue: in process memory, worked by Verdict's deferred worker in the same application. */
@Module({
  providers: [{ provide: InProcessDeferredQueue, useFactory: () => new InProcessDeferredQueue() }],
  exports: [InProcessDeferredQueue],
})
export class LabQueueModule {}
