import { ConflictException } from '@nestjs/common';
import { LIVE_ENV, LiveProvider, LiveSuiteError } from '@verdict/evaluation/live';
import type { LiveModeView } from '../runs/lab-run.js';

/**
 * The live lab's provider configuration, read once when the lab server starts from the same `VERDICT_LIVE_*`
 * variables `verdict-eval live` reads ({@link LiveProvider.fromEnv}: no parsing of its own). Without them the
 * live lab is off and says why; the key stays inside {@link LiveProvider} and never reaches a response.
 */
export class LiveLabProvider {
  private constructor(
    private readonly provider: LiveProvider | null,
    private readonly problem: string | null,
  ) {}

  /**
   * The configuration in `env`, or the reason there is none (the loader's message names variables, never values).
   * @throws whatever {@link LiveProvider.fromEnv} throws besides a {@link LiveSuiteError} (a bug, not a setting)
   */
  static fromEnv(env: Readonly<Record<string, string | undefined>>): LiveLabProvider {
    try {
      return new LiveLabProvider(LiveProvider.fromEnv(env), null);
    } catch (error) {
      if (error instanceof LiveSuiteError) return new LiveLabProvider(null, error.message);
      throw error;
    }
  }

  /** What the page shows: the provider kind and model id when configured, else why not and what to set. */
  view(): LiveModeView {
    return {
      configured: this.provider !== null,
      provider: this.provider === null ? null : { kind: this.provider.kind, model: this.provider.model },
      problem: this.problem,
      variables: LIVE_ENV,
    };
  }

  /**
   * The configured provider.
   * @throws ConflictException (409) when no provider is configured: the live lab runs nothing then
   */
  require(): LiveProvider {
    if (this.provider === null)
      throw new ConflictException(`The live lab has no provider configured: ${this.problem ?? 'set it up first'}.`);
    return this.provider;
  }
}
