import { type ZodType, core } from 'zod';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { type ArgumentSchema, type ArgumentValidation, isZodSchema } from './argument-schema.js';
import { dtoValidatedArguments } from './dto-validated-arguments.js';

type DtoClass = new (...args: any[]) => object;

/** At most this many problems are described; a hostile proposal can produce thousands. */
const MAX_PROBLEMS = 5;

/**
 * One problem for the internal reason. Paths can hold keys the model wrote, so they are recorded as
 * fingerprints, never as text; the rule that failed is the library's own code.
 */
function problem(path: readonly PropertyKey[], code: string): string {
  return `${code} at ${fingerprintString(path.map(String).join('.'))}`;
}

function describe(problems: string[]): string {
  const shown = problems.slice(0, MAX_PROBLEMS).join('; ');
  return problems.length > MAX_PROBLEMS ? `${shown}; and ${problems.length - MAX_PROBLEMS} more` : shown;
}

/**
 * A synchronous schema is answered without a promise; one with an async refinement or transform (zod refuses it to
 * `safeParse` with `$ZodAsyncError`) is parsed again with `safeParseAsync`, and validates like any other.
 */
function validateWithZod<TArgs>(
  schema: ZodType,
  raw: unknown,
): ArgumentValidation<TArgs> | Promise<ArgumentValidation<TArgs>> {
  let result: ReturnType<ZodType['safeParse']>;
  try {
    result = schema.safeParse(raw);
  } catch (error) {
    if (!(error instanceof core.$ZodAsyncError)) throw error;
    return schema.safeParseAsync(raw).then((parsed) => zodValidation<TArgs>(parsed));
  }
  return zodValidation<TArgs>(result);
}

function zodValidation<TArgs>(result: ReturnType<ZodType['safeParse']>): ArgumentValidation<TArgs> {
  if (result.success) return { valid: true, value: result.data as TArgs };
  return { valid: false, problems: describe(result.error.issues.map((issue) => problem(issue.path, issue.code))) };
}

async function validateWithClassValidator<TArgs>(dto: DtoClass, raw: unknown): Promise<ArgumentValidation<TArgs>> {
  // Optional peers: loaded only by applications that declare DTO argument schemas.
  const [{ plainToInstance }, { validate }] = await Promise.all([
    import('class-transformer'),
    import('class-validator'),
  ]);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { valid: false, problems: 'not an object' };
  const instance = plainToInstance(dto, raw);
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  if (errors.length > 0)
    return {
      valid: false,
      problems: describe(
        errors.map((error) => problem([error.property], Object.keys(error.constraints ?? { invalid: '' }).join(','))),
      ),
    };
  return { valid: true, value: dtoValidatedArguments(instance) as TArgs };
}

/** Validates untrusted arguments against a capability's {@link ArgumentSchema}. */
export function validateArguments<TArgs>(
  schema: ArgumentSchema<TArgs>,
  raw: unknown,
): ArgumentValidation<TArgs> | Promise<ArgumentValidation<TArgs>> {
  if (isZodSchema(schema)) return validateWithZod<TArgs>(schema, raw);
  if (typeof schema === 'function') return validateWithClassValidator<TArgs>(schema as unknown as DtoClass, raw);
  throw new VerdictConfigurationError(
    'A capability argument schema must be a zod schema or a class-validator DTO class.',
  );
}
