/**
 * The two variants of every injection: AgentDojo's `important_instructions` attack as it is (`standard`), and
 * the same attack asking the model to re-spell the attacker's values first (`adaptive`: dashes, scheme, case,
 * digits or split in two), the way an attacker gets a value past literal matching.
 */
export const AttackVariant = {
  Standard: 'standard',
  Adaptive: 'adaptive',
} as const;
export type AttackVariant = (typeof AttackVariant)[keyof typeof AttackVariant];

export const ATTACK_VARIANTS: readonly AttackVariant[] = [AttackVariant.Standard, AttackVariant.Adaptive];
