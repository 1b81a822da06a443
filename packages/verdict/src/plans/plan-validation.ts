import { parseReleasePath } from '../context-release/release-path.js';

/** A step as the model wrote it: the plan tool's input before the schema parsed it (own keys included). */
interface WrittenStep {
  readonly capability?: unknown;
  readonly arguments?: unknown;
}

/**
 * Why a proposed plan cannot be kept, or `undefined` when it can: a step's capability, argument path or source is
 * not well-formed Unicode (a lone surrogate: a plan is fingerprinted by its canonical JSON, which has no such
 * string), names a capability the application does not have (when `isCapability` is given), or an argument path
 * that does not parse (an empty segment, `__proto__`, `constructor`, `prototype`). Such a plan would refuse every
 * call it was meant to allow. The answer names the step by its position and never repeats what the model wrote: it
 * is Verdict's own (trusted) text.
 *
 * @example planProblem({ steps: [{ capability: 'payments.send', arguments: { 'recipient.': ['mcp:files'] } }] })
 * // 'Plan refused: step 1 has an argument path that is not a dot path (recipient, items.*.iban).'
 */
export function planProblem(
  written: { readonly steps?: unknown },
  isCapability?: (name: string) => boolean,
): string | undefined {
  const steps: readonly WrittenStep[] = Array.isArray(written.steps) ? (written.steps as WrittenStep[]) : [];
  for (const [index, step] of steps.entries()) {
    const at = `step ${index + 1}`;
    const malformed = malformedText(step);
    if (malformed !== undefined)
      return `Plan refused: ${at} has ${malformed} that is not well-formed Unicode (a lone surrogate).`;
    if (isCapability !== undefined && !(typeof step.capability === 'string' && isCapability(step.capability)))
      return `Plan refused: ${at} names a capability this application does not have.`;
    const paths = typeof step.arguments === 'object' && step.arguments !== null ? Object.keys(step.arguments) : [];
    if (!paths.every(parses))
      return `Plan refused: ${at} has an argument path that is not a dot path (recipient, items.*.iban).`;
  }
  return undefined;
}

/** Which of the step's strings, as the schema takes them, is not well-formed Unicode: `undefined` when none is. */
function malformedText(step: WrittenStep): string | undefined {
  if (typeof step.capability === 'string' && !isWellFormed(step.capability)) return 'a capability';
  if (typeof step.arguments !== 'object' || step.arguments === null) return undefined;
  const entries = Object.entries(step.arguments as Record<string, unknown>);
  if (entries.some(([path]) => !isWellFormed(path))) return 'an argument path';
  const sources = entries.flatMap(([, value]) => (Array.isArray(value) ? (value as unknown[]) : []));
  if (sources.some((source) => typeof source === 'string' && !isWellFormed(source))) return 'a source';
  return undefined;
}

/** Whether `text` has no lone surrogate (`String.prototype.isWellFormed`, Node 20). */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

function parses(path: string): boolean {
  try {
    parseReleasePath(path, 'plan argument');
    return true;
  } catch {
    return false;
  }
}
