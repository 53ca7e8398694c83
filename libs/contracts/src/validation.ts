import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import { DomainError, ErrorCode, type FieldError } from './errors';

const TYPE_RULES = ['isString', 'isNumber', 'isInt', 'isBoolean', 'isArray', 'isObject'];

/**
 * A nested object's rule met something else: class-validator says "each value in nested property <name> must
 * be either object or array"; this names the value (or each item of a list) that is not an object instead.
 */
function notObjects(field: string, value: unknown): FieldError[] {
  const isObject = (item: unknown) => typeof item === 'object' && item !== null && !Array.isArray(item);
  if (!Array.isArray(value)) return [{ field, message: `${field} must be an object` }];
  return value.flatMap((item: unknown, index) =>
    isObject(item) ? [] : [{ field: `${field}[${index}]`, message: `${field}[${index}] must be an object` }],
  );
}

/** Flattens class-validator's nested errors into `{field: "a.b[0].c", message}` items. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    const constraints = error.constraints ?? {};
    if (Object.keys(constraints).length && error.value === undefined) {
      out.push({ field, message: `${field} is required` });
      continue;
    }
    // A value of the wrong type fails every rule; its type is the one worth reporting, and what its nested
    // rules say of it (an object where a list of objects was due is also checked as one of them) is noise.
    const typeRule = TYPE_RULES.find((rule) => rule in constraints);
    if (typeRule) {
      out.push({ field, message: constraints[typeRule].replace(error.property, field) });
      continue;
    }
    if ('nestedValidation' in constraints) out.push(...notObjects(field, error.value));
    else for (const message of Object.values(constraints)) out.push({ field, message: message.replace(error.property, field) });
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}

type MetadataStorage = ReturnType<typeof getMetadataStorage>;
type TargetMetadatas = ReturnType<MetadataStorage['getTargetValidationMetadatas']>;

/**
 * class-validator looks a class's rules up again on every validation, scanning every class it knows for
 * parents (~40 % of validating a DeliveryRequestedEvent, 14 % of the webhook dispatcher's CPU): the
 * lookups are cached here, per class and options, and the cache is dropped whenever a rule is added (so
 * a class defined later is seen as always). Installed once per process, on class-validator's global storage.
 */
function cacheRuleLookups(): void {
  const storage = getMetadataStorage() as MetadataStorage & { workline_cached_lookups?: true };
  if (storage.workline_cached_lookups) return;
  storage.workline_cached_lookups = true;
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let cache = new Map<unknown, Map<string, TargetMetadatas>>();
  storage.addValidationMetadata = (metadata) => {
    cache = new Map();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups ? groups.join('\u0000') : '-'}`;
    let byOptions = cache.get(target);
    if (!byOptions) cache.set(target, (byOptions = new Map()));
    let found = byOptions.get(key);
    if (!found) byOptions.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    return found;
  };
  // Then the rules are grouped by property, again on every validation: once per looked-up array here.
  const group = storage.groupByPropertyName.bind(storage);
  const grouped = new WeakMap<TargetMetadatas, ReturnType<MetadataStorage['groupByPropertyName']>>();
  storage.groupByPropertyName = (metadatas) => {
    let found = grouped.get(metadatas);
    if (!found) grouped.set(metadatas, (found = group(metadatas)));
    return found;
  };
}
cacheRuleLookups();

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
