import { createRequire } from 'node:module';

type DtoClass = abstract new (...args: never[]) => object;

interface ValidationMetadataStorage {
  getTargetValidationMetadatas(
    target: DtoClass,
    schema: string,
    always: boolean,
    strictGroups: boolean,
  ): ReadonlyArray<{ readonly propertyName: string }>;
}

interface TransformMetadataStorage {
  findExposeMetadata(target: DtoClass, property: string): { readonly options?: ExposeOptions } | undefined;
  getExcludedProperties(target: DtoClass, transformationType: number): readonly (string | undefined)[];
}

interface ExposeOptions {
  readonly name?: string;
  readonly toClassOnly?: boolean;
}

/** class-transformer's `TransformationType.CLASS_TO_PLAIN`: the validated arguments are the DTO written as a plain object. */
export const CLASS_TO_PLAIN = 1;

/**
 * The top-level fields of the plain object a DTO class validates to (the validated arguments): each property
 * class-validator holds rules for, as the pipeline validates (no groups; with `whitelist` and
 * `forbidNonWhitelisted`, a property without rules is refused), under the name class-transformer writes it as
 * (`@Expose({ name })`), without those it `@Exclude`s from plain objects. `null` when class-validator cannot be
 * loaded (an optional peer). Both are read synchronously, from the same module instances the validator imports.
 */
export function dtoArgumentFields(dto: DtoClass): ReadonlySet<string> | null {
  const require = createRequire(import.meta.url);
  let validation: ValidationMetadataStorage;
  try {
    validation = (
      require('class-validator') as { getMetadataStorage(): ValidationMetadataStorage }
    ).getMetadataStorage();
  } catch {
    return null;
  }
  let transform: TransformMetadataStorage | undefined;
  try {
    transform = (require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformMetadataStorage })
      .defaultMetadataStorage;
  } catch {
    transform = undefined;
  }
  const excluded = new Set(transform?.getExcludedProperties(dto, CLASS_TO_PLAIN) ?? []);
  const fields = new Set<string>();
  for (const { propertyName } of validation.getTargetValidationMetadatas(dto, '', false, false)) {
    if (excluded.has(propertyName)) continue;
    const expose = transform?.findExposeMetadata(dto, propertyName)?.options;
    fields.add(expose?.name !== undefined && expose.toClassOnly !== true ? expose.name : propertyName);
  }
  return fields;
}
