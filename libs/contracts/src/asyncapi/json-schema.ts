import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { getMetadataStorage, IS_ISO8601, IS_OPTIONAL, IS_URL, MAX, MIN, ValidationTypes } from 'class-validator';
import { targetConstructorToSchema } from 'class-validator-jsonschema';

/** A JSON Schema object (the parts this generator reads or writes). */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  [keyword: string]: unknown;
}

export type ContractClass = new () => object;

export const SCHEMA_REF_PREFIX = '#/components/schemas/';

/**
 * Where the library's defaults say less than the classes do: events carry full timestamps
 * (Date#toISOString), IsUrl takes absolute URLs (the library's format "url" is no JSON Schema format), and
 * Min/Max bound integers as well as numbers (the library also sets type "number", which can hide an IsInt).
 */
const CONVERTERS = {
  [IS_ISO8601]: { type: 'string', format: 'date-time' },
  [IS_URL]: { type: 'string', format: 'uri' },
  [MIN]: (meta: { constraints: number[] }) => ({ minimum: meta.constraints[0] }),
  [MAX]: (meta: { constraints: number[] }) => ({ maximum: meta.constraints[0] }),
};

const metadataOf = (cls: ContractClass) => getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);

/** The classes a contract class nests (ValidateNested with class-transformer's @Type), by property. */
function nestedClasses(cls: ContractClass): ContractClass[] {
  return metadataOf(cls)
    .filter((meta) => meta.type === ValidationTypes.NESTED_VALIDATION)
    .map((meta) => {
      const nested = defaultMetadataStorage.findTypeMetadata(cls, meta.propertyName)?.typeFunction();
      if (!nested) throw new Error(`${cls.name}.${meta.propertyName}: ValidateNested needs @Type(() => Class) to name the nested class`);
      return nested as ContractClass;
    });
}

/** IsOptional lets null through as well as a missing property: the schema says so too. */
function allowNull(schema: JsonSchema): JsonSchema {
  if (schema.$ref) return { anyOf: [{ $ref: schema.$ref }, { type: 'null' }] };
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.type)) return { ...schema, type: [...new Set([...schema.type, 'null'])] };
  return { anyOf: [schema, { type: 'null' }] };
}

const shapeless = (schema: JsonSchema) =>
  !schema.$ref &&
  !schema.anyOf &&
  !schema.oneOf &&
  !schema.enum &&
  (schema.type === undefined || (schema.type === 'object' && !schema.properties && schema.additionalProperties === undefined));

/**
 * The JSON Schema of one contract class from its class-validator decorators (class-validator-jsonschema),
 * nested classes as $ref to #/components/schemas/<class name>. Throws for a property whose shape the
 * decorators cannot state (IsObject alone, e.g. a map): spell that one with @JSONSchema beside them, once.
 * `given` states the shape of a generic class's properties (EventEnvelope's data) for one use.
 */
export function classSchema(cls: ContractClass, given: Record<string, JsonSchema> = {}): JsonSchema {
  const schema = targetConstructorToSchema(cls, {
    classTransformerMetadataStorage: defaultMetadataStorage,
    refPointerPrefix: SCHEMA_REF_PREFIX,
    additionalConverters: CONVERTERS as never,
  }) as unknown as JsonSchema;
  if (!schema.properties) throw new Error(`${cls.name} has no class-validator decorators: nothing to derive its JSON Schema from`);
  const optional = new Set(
    metadataOf(cls)
      .filter((meta) => meta.name === IS_OPTIONAL)
      .map((meta) => meta.propertyName),
  );
  const properties: Record<string, JsonSchema> = {};
  const underivable: string[] = [];
  for (const [name, derived] of Object.entries(schema.properties)) {
    const property = given[name] ?? derived;
    // IsObject beside a nested $ref adds nothing (and draft-07 ignores siblings of $ref).
    const { type, ...rest } = property;
    const own = property.$ref ? rest : property;
    if (shapeless(own)) underivable.push(`${cls.name}.${name}`);
    properties[name] = optional.has(name) ? allowNull(own) : own;
    if (type && property.$ref && type !== 'object') throw new Error(`${cls.name}.${name}: a nested class with type ${String(type)}`);
  }
  if (underivable.length)
    throw new Error(`The decorators do not state the shape of ${underivable.join(', ')}: add @JSONSchema({...}) beside them`);
  return { ...schema, properties };
}

/** classSchema of each class and of every class it nests, by class name (sorted, so the output is stable). */
export function contractSchemas(roots: ContractClass[]): Record<string, JsonSchema> {
  const classes = new Map<string, ContractClass>();
  const queue = [...roots];
  while (queue.length) {
    const cls = queue.shift() as ContractClass;
    const known = classes.get(cls.name);
    if (known === cls) continue;
    if (known) throw new Error(`Two contract classes are named ${cls.name}: schema names must be unique`);
    classes.set(cls.name, cls);
    queue.push(...nestedClasses(cls));
  }
  return Object.fromEntries([...classes.keys()].sort().map((name) => [name, classSchema(classes.get(name) as ContractClass)]));
}
