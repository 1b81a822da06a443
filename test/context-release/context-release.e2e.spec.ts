import { describe, expect, it } from '@jest/globals';
import { createMongoAbility } from '@casl/ability';
import { Injectable, Module, Scope } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import {
  ContextReleaseDenied,
  ContextReleaseService,
  DataClass,
  Destination,
  InMemoryEvidenceRecorder,
  type PiiDetector,
  ReleasePolicies,
  ReleasePolicy,
  type ReleasePolicyProvider,
  SensitiveDataRedacted,
  Source,
  Trust,
  VerdictConfigurationError,
  VerdictModule,
  type VerdictModuleOptions,
} from '@verdict/nestjs';

const profile = Source.application('customer-profile');
const local = Destination.connection('ollama-local', 'local-machine');
const remote = Destination.connection('ollama-local', 'partner-cloud');
const piiToLocal = ReleasePolicy.route(profile, local).allow({ classes: [DataClass.Pii], trust: [Trust.Trusted] });
const abilityFactory = { createForContext: () => createMongoAbility() };

@ReleasePolicies()
@Injectable()
class SupportRoutes implements ReleasePolicyProvider {
  releasePolicies() {
    return [
      ReleasePolicy.route(Source.external('carrier-api'), local).allow({
        classes: [DataClass.Internal],
        trust: [Trust.Untrusted],
      }),
    ];
  }
}

@ReleasePolicies()
@Injectable()
class DuplicateRoutes implements ReleasePolicyProvider {
  releasePolicies() {
    return [ReleasePolicy.route(profile, local)];
  }
}

async function boot(
  options: Partial<VerdictModuleOptions> = {},
  providers: any[] = [],
  imports: any[] = [EventEmitterModule.forRoot()],
) {
  const evidence = new InMemoryEvidenceRecorder();
  @Module({ providers })
  class RoutesModule {}
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({ abilityFactory, evidence, releasePolicies: [piiToLocal], ...options }),
      RoutesModule,
      ...imports,
    ],
  }).compile();
  await moduleRef.init();
  const events: Array<{ name: string; value: unknown }> = [];
  if (imports.length > 0) {
    const emitter = moduleRef.get(EventEmitter2);
    for (const name of [ContextReleaseDenied.event, SensitiveDataRedacted.event])
      emitter.on(name, (value: unknown) => events.push({ name, value }));
  }
  return { moduleRef, evidence, events, releases: moduleRef.get(ContextReleaseService) };
}

const bootError = async (attempt: Promise<unknown>): Promise<Error> => {
  try {
    await attempt;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected boot to fail');
};

const customer = {
  first_name: 'Ada',
  email: 'ada@example.org',
  orders: [{ status: 'shipped', card: '4111111111111111' }],
};

describe('Context release in a Nest application', () => {
  it('releases through a route from the module options, records it, and announces the redaction', async () => {
    const { releases, evidence, events, moduleRef } = await boot();
    const result = await releases
      .release(customer)
      .source(profile)
      .trust(Trust.Trusted)
      .classify(DataClass.Pii)
      .only(['first_name', 'email', 'orders.*.status'])
      .redact(['email'])
      .to(local);

    expect(result).toMatchObject({
      permitted: true,
      reason: 'released',
      payload: { first_name: 'Ada', email: '[REDACTED]', orders: [{ status: 'shipped' }] },
    });
    expect(evidence.releases()).toHaveLength(1);
    expect(evidence.releases()[0]).toMatchObject({
      id: result.recordId,
      disposition: 'permit',
      destinationConnection: 'ollama-local',
      destinationTrustZone: 'local-machine',
    });
    expect(events).toEqual([
      {
        name: SensitiveDataRedacted.event,
        value: expect.objectContaining({ recordId: result.recordId, redactedFields: 1 }),
      },
    ]);
    await moduleRef.close();
  });

  it('registers the routes of a @ReleasePolicies() provider', async () => {
    const { releases, moduleRef } = await boot({}, [SupportRoutes]);
    const result = await releases
      .release({ eta: 'tomorrow' })
      .source(Source.external('carrier-api'))
      .trust(Trust.Untrusted)
      .classify(DataClass.Internal)
      .only(['eta'])
      .to(local);
    expect(result).toMatchObject({ permitted: true, payload: { eta: 'tomorrow' } });
    await moduleRef.close();
  });

  it('denies the same connection in another trust zone, records it, and emits ContextReleaseDenied', async () => {
    const { releases, evidence, events, moduleRef } = await boot();
    const result = await releases
      .release(customer)
      .source(profile)
      .trust(Trust.Trusted)
      .classify(DataClass.Pii)
      .only(['first_name'])
      .to(remote);

    expect(result).toMatchObject({ permitted: false, payload: {}, reason: 'route_not_registered' });
    expect(evidence.releases()[0]).toMatchObject({
      disposition: 'deny',
      reason: 'route_not_registered',
      destinationTrustZone: 'partner-cloud',
    });
    expect(events).toEqual([
      {
        name: ContextReleaseDenied.event,
        value: expect.objectContaining({ reason: 'route_not_registered', destination: 'ollama-local@partner-cloud' }),
      },
    ]);
    await moduleRef.close();
  });

  it('works without EventEmitterModule', async () => {
    const { releases, moduleRef } = await boot({}, [], []);
    const result = await releases
      .release(customer)
      .source(profile)
      .trust(Trust.Trusted)
      .classify(DataClass.Pii)
      .only(['first_name'])
      .to(remote);
    expect(result.permitted).toBe(false);
    await moduleRef.close();
  });

  it('scans and validates with the module’s detectors', async () => {
    const word: PiiDetector = {
      name: 'codeword',
      label: 'CODEWORD',
      dataClass: DataClass.Sensitive,
      detect: (text) =>
        [...text.matchAll(/swordfish/g)].map((m) => ({
          detector: 'codeword',
          label: 'CODEWORD',
          dataClass: DataClass.Sensitive,
          start: m.index,
          end: m.index + 9,
        })),
    };
    const { releases, moduleRef } = await boot({ detectors: [word] });
    const result = await releases
      .release({ note: 'the password is swordfish' })
      .source(profile)
      .trust(Trust.Trusted)
      .classify(DataClass.Pii)
      .only(['note'])
      .to(local);
    expect(result).toMatchObject({ permitted: false, reason: 'detector_fired:CODEWORD' });
    await moduleRef.close();
  });

  describe('wiring', () => {
    it('fails at boot on a route registered twice, in options and by a provider', async () => {
      const error = await bootError(boot({}, [DuplicateRoutes]));
      expect(error).toBeInstanceOf(VerdictConfigurationError);
      expect(error.message).toContain('registered twice');
      expect(error.message).toContain('DuplicateRoutes');
    });

    it('fails at boot on a route registered twice in the options', async () => {
      const error = await bootError(boot({ releasePolicies: [piiToLocal, ReleasePolicy.route(profile, local)] }));
      expect(error).toBeInstanceOf(VerdictConfigurationError);
      // Both places are named: which two entries to merge.
      expect(error.message).toContain('at VerdictModule releasePolicies[0] and at VerdictModule releasePolicies[1]');
    });

    it('fails at boot on a @ReleasePolicies() provider without releasePolicies()', async () => {
      @Injectable()
      class Empty {}
      // The decorator's type already refuses such a class; plain JavaScript callers get the boot error.
      (ReleasePolicies() as (target: unknown) => void)(Empty);
      const error = await bootError(boot({}, [Empty]));
      expect(error).toBeInstanceOf(VerdictConfigurationError);
      expect(error.message).toContain('releasePolicies()');
    });

    it('fails at boot on a request-scoped @ReleasePolicies() provider', async () => {
      @ReleasePolicies()
      @Injectable({ scope: Scope.REQUEST })
      class Scoped implements ReleasePolicyProvider {
        releasePolicies() {
          return [];
        }
      }
      const error = await bootError(boot({}, [Scoped]));
      expect(error).toBeInstanceOf(VerdictConfigurationError);
    });

    it('fails at boot on malformed detectors', async () => {
      const error = await bootError(boot({ detectors: [{ name: 'half' } as unknown as PiiDetector] }));
      expect(error).toBeInstanceOf(VerdictConfigurationError);
    });
  });
});
