import { describe, expect, it } from '@jest/globals';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { DataClass } from './data-class.js';
import { Destination } from './destination.js';
import { ReleasePolicy } from './release-policy.js';
import { ReleasePolicyRegistry } from './release-policy-registry.js';
import { Source } from './source.js';
import { Trust } from './trust.js';

const profile = Source.application('customer-profile');
const local = Destination.connection('ollama-local', 'local-machine');

describe('ReleasePolicy', () => {
  it('permits nothing until classes and trust levels are allowed', () => {
    const route = ReleasePolicy.route(profile, local);
    expect(route.permitsNothing).toBe(true);
    const allowed = route.allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] });
    expect(allowed.permitsNothing).toBe(false);
    expect([...allowed.classes]).toEqual([DataClass.Pii]);
    expect(route.permitsNothing).toBe(true);
  });

  it('adds to what a route allows, and nothing else', () => {
    const policy = ReleasePolicy.route(profile, local)
      .allow({ classes: [DataClass.Public], trust: [Trust.Trusted] })
      .allow({ classes: [DataClass.Internal], trust: [] })
      .allow({ classes: [DataClass.Pii], trust: [Trust.Untrusted] });
    expect([...policy.classes].sort()).toEqual([DataClass.Pii, DataClass.Public]);
    expect([...policy.trust].sort()).toEqual([Trust.Trusted, Trust.Untrusted]);
    expect(policy.permits(DataClass.Public, Trust.Trusted)).toBe(true);
    expect(policy.permits(DataClass.Pii, Trust.Untrusted)).toBe(true);
    expect(policy.permits(DataClass.Internal, Trust.Trusted)).toBe(false);
    expect(policy.permits(DataClass.Pii, Trust.Trusted)).toBe(false);
    expect(policy.permits(DataClass.Public, Trust.Untrusted)).toBe(false);
  });

  it.each([
    ['an unknown class', { classes: ['secret'], trust: [Trust.Trusted] }],
    ['an unknown trust level', { classes: [DataClass.Pii], trust: ['mostly'] }],
    ['a missing list', { classes: [DataClass.Pii] }],
  ])('refuses %s', (_, allowance) => {
    expect(() => ReleasePolicy.route(profile, local).allow(allowance as never)).toThrow(VerdictConfigurationError);
  });

  it('refuses look-alike sources, destinations and detectors', () => {
    expect(() => ReleasePolicy.route({ kind: 'application', name: 'x' } as never, local)).toThrow(
      VerdictConfigurationError,
    );
    expect(() => ReleasePolicy.route(profile, { connection: 'c', trustZone: 'z' } as never)).toThrow(
      VerdictConfigurationError,
    );
    expect(() => ReleasePolicy.route(profile, local).detectWith([{ name: 'x' }] as never)).toThrow(
      VerdictConfigurationError,
    );
  });
});

describe('ReleasePolicyRegistry', () => {
  it('finds a route only by its exact source and destination', () => {
    const registry = new ReleasePolicyRegistry();
    const policy = ReleasePolicy.route(profile, local);
    registry.register(policy);
    expect(registry.find(profile, Destination.connection('ollama-local', 'local-machine'))).toBe(policy);
    expect(registry.find(profile, Destination.connection('ollama-local', 'remote-gpu'))).toBeUndefined();
    expect(registry.find(Source.user('customer-profile'), local)).toBeUndefined();
  });

  it('refuses a second policy for the same route, naming both places', () => {
    const registry = new ReleasePolicyRegistry();
    registry.register(ReleasePolicy.route(profile, local), 'FirstRoutes');
    const again = () =>
      registry.register(
        ReleasePolicy.route(Source.application('customer-profile'), local).allow({
          classes: [DataClass.Pii],
          trust: [Trust.Trusted],
        }),
        'SecondRoutes',
      );
    expect(again).toThrow(VerdictConfigurationError);
    expect(again).toThrow(/FirstRoutes.*SecondRoutes/);
  });

  it('keeps one connection in two trust zones as two routes', () => {
    const registry = new ReleasePolicyRegistry();
    registry.register(ReleasePolicy.route(profile, local));
    expect(() =>
      registry.register(ReleasePolicy.route(profile, Destination.connection('ollama-local', 'partner-cloud'))),
    ).not.toThrow();
    expect(registry.all()).toHaveLength(2);
  });
});
