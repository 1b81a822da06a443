import type { ZodType } from 'zod';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { type ArgumentSchema, type ArgumentValidation, isZodSchema } from './argument-schema.js';

type DtoClass = new (...args: any[]) => object;

function validateWithZod<TArgs>(schema: ZodType, raw: unknown): ArgumentValidation<TArgs> {
  const result = schema.safeParse(raw);
  if (result.success) return { valid: true, value: result.data as TArgs };
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '$'}: ${issue.code}`).join('; ');
  return { valid: false, problems };
}

async function validateWithClassValidator<TArgs>(dto: DtoClass, raw: unknown): Promise<ArgumentValidation<TArgs>> {
  // Optional peers: loaded only by applications that declare DTO argument schemas.
  const [{ plainToInstance, instanceToPlain }, { validate }] = await Promise.all([import('class-transformer'), import('class-validator')]);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { valid: false, problems: '$: expected an object' };
  const instance = plainToInstance(dto, raw);
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  if (errors.length > 0)
    return { valid: false, problems: errors.map((error) => `${error.property}: ${Object.keys(error.constraints ?? { invalid: '' }).join(',')}`).join('; ') };
  return { valid: true, value: instanceToPlain(instance) as TArgs };
}

/** Validates untrusted arguments against a capability's {@link ArgumentSchema}. */
export function validateArguments<TArgs>(schema: ArgumentSchema<TArgs>, raw: unknown): ArgumentValidation<TArgs> | Promise<ArgumentValidation<TArgs>> {
  if (isZodSchema(schema)) return validateWithZod<TArgs>(schema, raw);
  if (typeof schema === 'function') return validateWithClassValidator<TArgs>(schema as unknown as DtoClass, raw);
  throw new VerdictConfigurationError('A capability argument schema must be a zod schema or a class-validator DTO class.');
}
