import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, from, switchMap } from 'rxjs';
import { MODULE_OPTIONS_TOKEN } from '../verdict.module-definition.js';
import type { VerdictModuleOptions } from '../verdict-module-options.interface.js';
import { ActionContextStore } from './action-context.store.js';

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
    @Inject(MODULE_OPTIONS_TOKEN) private readonly options: VerdictModuleOptions,
  ) {}

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
