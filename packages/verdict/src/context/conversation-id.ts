import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { ActionContext } from './action-context.js';

/**
 * The conversation id the application put in `context.metadata.conversationId`: `null` when it is absent
 * (`undefined` or `null`), the id itself when it is a non-blank string or a finite number (`5` and `'5'` are
 * different conversations). Anything else is a wiring fault: a malformed id must never bind weaker than a
 * well-formed one.
 *
 * @throws VerdictConfigurationError for a blank string (empty or only whitespace), a non-finite number or any other type.
 * @example conversationIdOf({ actor, tenant: 'acme', metadata: { conversationId: 'c-1' } }) // 'c-1'
 */
export function conversationIdOf(context: ActionContext, capability?: string): string | number | null {
  const value = context.metadata?.conversationId;
  if (value === undefined || value === null) return null;
  if ((typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && Number.isFinite(value)))
    return value;
  throw new VerdictConfigurationError(
    `The action context's metadata.conversationId is ${typeof value === 'string' ? 'a blank string' : `a ${typeof value === 'number' ? 'non-finite number' : typeof value}`}: set it to the conversation's id (a non-blank string or a finite number) in resolveContext, or leave it out.`,
    capability === undefined ? {} : { capability },
  );
}
