import { Logger } from '@nestjs/common';
import { isThenable } from '../shared/is-thenable.js';

/** Where Verdict sends an event: `EventEmitter2` from `@nestjs/event-emitter`, or any object with its `emit`. */
interface EventSink<E> {
  emit(name: string, event: E): unknown;
}

/**
 * Emits `event` as `name` to `events` when there is one; a listener never changes what the caller answers. A
 * listener that throws, or whose promise rejects, is logged (the event's name, never its facts) and the caller goes
 * on. Listeners are called at once, in order, as `emit` calls them; EventEmitter2 calls none of the event's later
 * listeners once one has thrown synchronously. A listener registered with `{ async: true }` runs later, and
 * EventEmitter2 drops its promise: its failure is its own to catch.
 */
export function emitSafely<E extends object>(events: EventSink<E> | undefined, name: string, event: E): void {
  if (events === undefined) return;
  const failed = (error: unknown) =>
    new Logger('Verdict').error(`A listener of ${name} failed; the result it was raised for stands`, error);
  try {
    // EventEmitter2's emitAsync, not emit: emit drops an async listener's promise, whose rejection would then go
    // unhandled.
    const { emitAsync } = events as { emitAsync?: (name: string, event: E) => unknown };
    const emitted = typeof emitAsync === 'function' ? emitAsync.call(events, name, event) : events.emit(name, event);
    if (isThenable(emitted)) Promise.resolve(emitted).catch(failed);
  } catch (error) {
    failed(error);
  }
}
