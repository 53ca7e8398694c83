import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { DomainError, ErrorCode, type FieldError } from './errors';

const TYPE_RULES = ['isString', 'isNumber', 'isInt', 'isBoolean', 'isArray', 'isObject', 'nestedValidation'];

/** Flattens class-validator's nested errors into `{field: "a.b[0].c", message}` items. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    const constraints = error.constraints ?? {};
    if (Object.keys(constraints).length && error.value === undefined) {
      out.push({ field, message: `${field} is required` });
    } else {
      // A value of the wrong type fails every rule; its type is the one worth reporting.
      const typeRule = TYPE_RULES.find((rule) => rule in constraints);
      const messages = typeRule ? [constraints[typeRule]] : Object.values(constraints);
      for (const message of messages) out.push({ field, message: message.replace(error.property, field) });
    }
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}

/**
 * Validates a plain object against a contract class; throws DomainError(VALIDATION) naming each field.
 * Used on both sides of Kafka, because hybrid and microservice apps do not inherit HTTP pipes.
 */
export function validateContract<T extends object>(cls: new () => T, plain: unknown): T {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    throw new DomainError(ErrorCode.Validation, 'Invalid request: the body must be a JSON object', [
      { field: '(body)', message: 'the body must be a JSON object' },
    ]);
  }
  const instance = plainToInstance(cls, plain);
  const errors = flattenValidationErrors(validateSync(instance, { whitelist: true, forbidNonWhitelisted: true }));
  if (errors.length) {
    throw new DomainError(ErrorCode.Validation, `Invalid request: ${errors.map((e) => e.message).join('; ')}`, errors);
  }
  return instance;
}
