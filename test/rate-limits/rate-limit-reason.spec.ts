import { describe, expect, it } from '@jest/globals';
import { VerdictConfigurationError } from '@verdict/nestjs';
import { bootPing } from './ping.fixture.js';

/**
 * A rate limit's `reason` is the internal reason its throttle records carry (a NOT NULL column on TypeORM): a
 * JavaScript caller who leaves it out must be stopped at boot, not after a unit is spent.
 */

const boot = (reason: unknown) => bootPing({ reason });

describe('fixedWindow reason', () => {
  it.each([
    ['missing', undefined],
    ['blank', '   '],
    ['not a string', 42],
  ])('attack: a rate limit whose reason is %s fails at boot', async (_kind, reason) => {
    const booting = boot(reason);

    await expect(booting).rejects.toBeInstanceOf(VerdictConfigurationError);
    await expect(booting).rejects.toThrow(/rateLimit without a reason/);
  });

  it('control: a rate limit with a reason boots, and its throttle record carries the reason', async () => {
    const { moduleRef, evidence, ping } = await boot('one ping an hour');

    const first = await ping();
    const second = await ping();

    expect(first).toMatchObject({ executed: true });
    expect(second).toMatchObject({ executed: false, decision: { disposition: 'throttle', stage: 'rate_limit' } });
    expect(evidence.decisions().at(-1)).toMatchObject({
      stage: 'rate_limit',
      disposition: 'throttle',
      reason: 'one ping an hour',
    });
    await moduleRef.close();
  });
});
