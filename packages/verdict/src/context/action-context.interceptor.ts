import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, from, switchMap } from 'rxjs';
import { ACTION_CONTEXT_OPTIONS, type ActionContextOptions } from './action-context-options.interface.js';
import { ActionContextStore } from './action-context.store.js';
import { assertOptionalFunction } from '../shared/optional-function.js';

/**
 * Binds the action context for the rest of the request, from the application's
 * `resolveContext(executionContext)` option. It runs after guards, so the authenticated user is known.
 *
 * @example
 * \@UseInterceptors(ActionContextInterceptor)
 * \@Controller('assistant') export class AssistantController {}
 */
@Injectable()
export class ActionContextInterceptor implements NestInterceptor {
  constructor(
    private readonly contexts: ActionContextStore,
    @Inject(ACTION_CONTEXT_OPTIONS) private readonly options: ActionContextOptions,
  ) {
    assertOptionalFunction(
      options.resolveContext,
      'resolveContext',
      'resolveContext: (executionContext) => ({ actor, tenant })',
    );
  }

  intercept(executionContext: ExecutionContext, next: CallHandler): Observable<unknown> {
    const resolve = this.options.resolveContext;
    if (resolve === undefined) return next.handle();
    return from(Promise.resolve(resolve(executionContext))).pipe(
      switchMap(
        (context) =>
          new Observable((subscriber) => this.contexts.run(context, () => next.handle().subscribe(subscriber))),
      ),
    );
  }
}
