import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { ContainmentOptions } from './containment-options.interface.js';
import { type ContainmentRule, containmentRuleProblem } from './containment-rule.js';
import type { KillSwitchOptions } from './kill-switch-options.interface.js';
import { notAStore } from '../shared/not-a-store.js';

/** What step 0, operators and rules call on the configured store: every method of `ContainmentStore`. */
const STORE_METHODS = ['active', 'engage', 'release'] as const;

/**
 * Boot-time checks of the module option `containment`, whenever it is given: a store with every method of
 * `ContainmentStore`; a `cacheTtlMs` that is a finite number of milliseconds, at least 0 (`Infinity` would never
 * read the store again, so an engagement elsewhere would never take effect here); each rule as `containmentRule`
 * builds it (its checks run again, so a rule written as a plain object is held to them); and a `ruleCounters` store
 * that can count. Without them the module would boot, then fail every call at step 0, or a rule would never contain.
 *
 * @throws VerdictConfigurationError naming the option at fault.
 */
export function assertContainmentConfigured(options: KillSwitchOptions): void {
  const containment = options.containment as Partial<ContainmentOptions> | null | undefined;
  if (containment === undefined) return;
  if (typeof containment !== 'object' || containment === null)
    fail('`containment` is not an object: pass containment: { store } to VerdictModule.forRoot, or leave it out.');
  const store = notAStore(containment.store, 'containment.store', 'ContainmentStore', STORE_METHODS);
  if (store !== null) fail(`${store}: pass containment: { store: new TypeOrmContainmentStore(dataSource) }.`);
  const ttl = containment.cacheTtlMs;
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0))
    fail(
      `\`containment.cacheTtlMs\` is ${String(ttl)}: it must be a finite number of milliseconds, at least 0 (the bound within which an engagement made elsewhere takes effect here).`,
    );
  if (containment.rules !== undefined) {
    if (!Array.isArray(containment.rules))
      fail('`containment.rules` is not an array: pass rules: [containmentRule({ … })].');
    containment.rules.forEach(assertRule);
  }
  const counters =
    containment.ruleCounters === undefined
      ? null
      : notAStore(containment.ruleCounters, 'containment.ruleCounters', 'RateLimitStore', ['consume']);
  if (counters !== null) fail(`${counters}: pass a TypeOrmRateLimitStore.`);
}

function assertRule(rule: ContainmentRule, index: number): void {
  const where = `\`containment.rules[${index}]\``;
  const build = 'Build each rule with containmentRule({ name, on, threshold, windowSeconds, contain }).';
  if (typeof rule !== 'object' || rule === null) fail(`${where} is not a containment rule. ${build}`);
  const problem = containmentRuleProblem(rule);
  if (problem !== null) fail(`${where} (containment rule "${String(rule.name)}") ${problem} ${build}`);
}

function fail(message: string): never {
  throw new VerdictConfigurationError(`The module option ${message}`);
}
