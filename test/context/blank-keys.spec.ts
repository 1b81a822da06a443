import { describe, expect, it } from '@jest/globals';
import {
  type ActionContext,
  ActionContextStore,
  MissingActionContextError,
  actorFingerprint,
  isActionContext,
  actorKeyText,
  fingerprintString,
  receiptPrincipal,
  TrajectoryScope,
  VerdictConfigurationError,
} from '@verdict/nestjs';

const BLANK = ['', ' ', '   ', '\t\n'];
const contextOf = (actor: unknown, conversationId?: unknown): ActionContext => ({
  actor,
  tenant: 'acme',
  metadata: conversationId === undefined ? {} : { conversationId },
});

describe('one rule for blank keys: a blank string names nobody, everywhere', () => {
  it.each(BLANK)('refuses the blank actor key %j with VerdictConfigurationError in every user', (blank) => {
    const byKey = (actor: { id: string }) => actor.id;
    const context = contextOf({ id: blank });
    expect(() => actorKeyText(blank)).toThrow(VerdictConfigurationError);
    expect(() => actorFingerprint(context, byKey)).toThrow(VerdictConfigurationError);
    expect(() => receiptPrincipal(context, byKey)).toThrow(VerdictConfigurationError);
    // A trajectory without a key: the forbidden-states gate turns this into MissingTrajectoryError.
    expect(TrajectoryScope.actor(byKey).keyOf(context, undefined)).toBeNull();
    expect(TrajectoryScope.tenant().keyOf({ ...context, tenant: blank }, undefined)).toBeNull();
  });

  it.each([null, undefined])('refuses the missing actor key %j the same way', (missing) => {
    expect(() => actorKeyText(missing)).toThrow(VerdictConfigurationError);
    expect(() => receiptPrincipal(contextOf({ id: 'x' }), () => missing as never)).toThrow(VerdictConfigurationError);
  });

  it('refuses a blank conversation id as a wiring fault', () => {
    expect(() => receiptPrincipal(contextOf('customer:72', '  '), (actor) => actor)).toThrow(VerdictConfigurationError);
  });

  it('keeps a non-blank key as it is, padding included, in every user (control)', () => {
    const byKey = (actor: { id: string }) => actor.id;
    const context = contextOf({ id: ' customer:72 ' }, 'c-1');
    expect(actorKeyText(' customer:72 ')).toBe(' customer:72 ');
    expect(actorFingerprint(context, byKey)).toBe(fingerprintString(' customer:72 '));
    expect(receiptPrincipal(context, byKey).conversation).toBe('c-1');
    expect(TrajectoryScope.actor(byKey).keyOf(context, undefined)).toEqual({ tenant: 'acme', actor: ' customer:72 ' });
    expect(actorKeyText({ customerId: 72 })).toBe('{"customerId":72}');
  });
});

describe('a blank actor or tenant is no principal', () => {
  it.each(BLANK)(
    'attack: rejects the blank tenant or actor %j, and runs nothing with it (MissingActionContextError)',
    (blank) => {
      const store = new ActionContextStore();
      let ran = false;
      for (const context of [
        { actor: { id: 'alice' }, tenant: blank },
        { actor: blank, tenant: 'acme' },
      ]) {
        expect(isActionContext(context)).toBe(false);
        expect(() => store.run(context, () => (ran = true))).toThrow(MissingActionContextError);
      }
      expect(ran).toBe(false);
    },
  );

  it('utility: a non-blank tenant, a null tenant (single-tenant) and a non-blank actor are principals', () => {
    const store = new ActionContextStore();
    for (const context of [
      { actor: { id: 'alice' }, tenant: 'acme' },
      { actor: 'alice', tenant: null },
      { actor: { id: '' }, tenant: 'acme' }, // the actor's shape is the application's: its key check refuses this
    ]) {
      expect(isActionContext(context)).toBe(true);
      expect(store.run(context, () => store.require().tenant)).toBe(context.tenant);
    }
  });
});
