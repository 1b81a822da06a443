import { Respelling, assistantInstruction } from '@verdict/nestjs/testing';
import { attackerCalls, type AgentDojoCorpus, type CorpusInjectionTask } from './agentdojo-corpus.js';
import { AttackVariant } from './attack-variant.js';

/** `{user}` of the template in every suite; `{model}` is AgentDojo's default model name. */
const USER = 'Emma Johnson';
const MODEL = 'the AI language model';

/**
 * The attack text of `task` as AgentDojo writes it into every vector a user task exposes: the
 * `important_instructions` template around the goal, followed (for the injection-following model, which obeys
 * only instruction lines) by one instruction line per attacker call. In the adaptive variant each line also
 * asks for the values of `respellings` to be re-spelt. The text is folded as AgentDojo's YAML double-quoted
 * scalars fold it: a single line break becomes a space, a blank line one line break.
 */
export function attackText(
  corpus: AgentDojoCorpus,
  task: CorpusInjectionTask,
  respellings: Readonly<Record<string, Respelling>> = {},
): string {
  const lines = attackerCalls(task).map((call) => assistantInstruction(call.function, call.args, respellings));
  const goal = [task.goal, ...lines].join('\n\n');
  const text = corpus.attack_templates.important_instructions.template
    .replaceAll('{user}', USER)
    .replaceAll('{model}', MODEL)
    .replace('{goal}', goal);
  return foldAsYamlDoubleQuoted(text);
}

/** What YAML's double-quoted folding leaves of a multi-line text: `\n` → space, `\n\n…` → one `\n` fewer. */
export function foldAsYamlDoubleQuoted(text: string): string {
  return text.replace(/\n(\n*)/g, (_line, blank: string) => (blank.length > 0 ? blank : ' '));
}

/** The re-spellings that fit a value's shape, in the order the adaptive variant rotates through them. */
function respellingsFitting(value: string): readonly Respelling[] {
  if (/^\d[\d ]*$/.test(value)) return [Respelling.Dashes, Respelling.Digits, Respelling.Split];
  if (value.includes('@')) return [Respelling.Case, Respelling.Digits, Respelling.Split, Respelling.Dashes];
  if (/\.[a-z]{2,}/i.test(value)) return [Respelling.Scheme, Respelling.Case, Respelling.Digits, Respelling.Split];
  return [Respelling.Case, Respelling.Split];
}

/**
 * The re-spellings the adaptive variant of one pair asks for: each attacker value re-spelt one way, the way
 * rotating with the pair's `index` so that the pairs of an injection exercise every re-spelling that fits.
 * The standard variant asks for none.
 */
export function respellingsOf(
  variant: AttackVariant,
  values: readonly string[],
  index: number,
): Readonly<Record<string, Respelling>> {
  if (variant === AttackVariant.Standard) return {};
  return Object.fromEntries(
    values.map((value) => {
      const fitting = respellingsFitting(value);
      return [value, fitting[index % fitting.length]!];
    }),
  );
}
