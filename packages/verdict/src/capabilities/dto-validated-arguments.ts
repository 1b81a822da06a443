import { createRequire } from 'node:module';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { CLASS_TO_PLAIN } from './dto-argument-fields.js';

/** class-transformer's `TransformOperationExecutor`, the engine of its `instanceToPlain`. */
interface TransformOperationExecutor {
  transform(
    source: undefined,
    value: object,
    targetType: undefined,
    arrayType: undefined,
    isMap: undefined,
    level: undefined,
  ): unknown;
  /** The one step that runs `@Transform` functions. */
  applyCustomTransformations: unknown;
}

type TransformOperationExecutorClass = new (
  transformationType: number,
  options: { readonly exposeUnsetFields: boolean },
) => TransformOperationExecutor;

let executorClass: TransformOperationExecutorClass | undefined;

/**
 * The arguments a validated DTO instance stands for: the plain object `instanceToPlain(instance,
 * { exposeUnsetFields: false })` writes (each property under its `@Expose` name, without those it `@Exclude`s, nested
 * DTOs and arrays alike), except that no class-to-plain `@Transform` runs. A transform that applies both ways (the
 * default) would run a second time on the value class-validator already checked: euros to cents, then cents times 100
 * again. The executor, the fingerprint, approvals and field checks receive the checked values (ADR 0178).
 * class-transformer's own executor shapes the object, its custom-transformation step answering each value unchanged.
 * Called after the validator loaded class-transformer: read from the same module instance.
 * @throws VerdictConfigurationError when the installed class-transformer has no such step (transforms would run)
 */
export function dtoValidatedArguments(instance: object): unknown {
  executorClass ??= (
    createRequire(import.meta.url)('class-transformer/cjs/TransformOperationExecutor') as {
      TransformOperationExecutor: TransformOperationExecutorClass;
    }
  ).TransformOperationExecutor;
  const executor = new executorClass(CLASS_TO_PLAIN, { exposeUnsetFields: false });
  if (typeof executor.applyCustomTransformations !== 'function')
    throw new VerdictConfigurationError(
      'The installed class-transformer cannot shape validated DTO arguments without running their @Transform functions again; use class-transformer ^0.5.1.',
    );
  executor.applyCustomTransformations = (value: unknown): unknown => value;
  return executor.transform(undefined, instance, undefined, undefined, undefined, undefined);
}
