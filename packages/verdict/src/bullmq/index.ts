// The review lane's queue on Redis through @nestjs/bullmq (optional peers: bullmq, @nestjs/bullmq).
export { VerdictBullMqModule } from './verdict-bullmq.module.js';
export { BullMqDeferredQueue } from './bullmq-deferred-queue.js';
export { VERDICT_DEFERRED_QUEUE } from './constants.js';
export {
  VERDICT_BULLMQ_OPTIONS,
  type VerdictBullMqOptions,
  type DeferredWorkerOptions,
} from './verdict-bullmq-options.interface.js';
