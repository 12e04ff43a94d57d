/**
 * The operations of Waymark's own `/openapi.json`, read generically so that whole-API tests
 * (isolation, fuzzing) cover every route, including routes added later: a test that walks
 * `operations(doc)` meets a new route the day it is documented.
 *
 * @example
 * const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
 * for (const op of operations(doc)) console.log(op.method, op.path, op.params.map((p) => p.name));
 */

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  nullable?: boolean;
  default?: unknown;
};

export interface OpenApiDoc {
  paths: Record<string, Record<string, RawOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

interface RawOperation {
  operationId?: string;
  parameters?: { in: 'path' | 'query' | 'header'; name: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  security?: unknown[];
}

export interface OperationParam {
  in: 'path' | 'query';
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** OpenAPI form: `/links/{linkId}`. */
  path: string;
  /** `POST /links`: names the operation in messages. */
  name: string;
  params: OperationParam[];
  /** The JSON body schema, `$ref`s resolved at the top level; undefined when there is no body. */
  body?: JsonSchema;
  /** No key needed (`security: []`). */
  public: boolean;
}

/** Every documented operation, in document order. */
export function operations(doc: OpenApiDoc): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const upper = method.toUpperCase() as Operation['method'];
      const params = (op.parameters ?? [])
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => ({ in: p.in as 'path' | 'query', name: p.name, required: !!p.required, schema: resolve(doc, p.schema ?? {}) }));
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      out.push({
        method: upper,
        path,
        name: `${upper} ${path}`,
        params,
        body: bodySchema ? resolve(doc, bodySchema) : undefined,
        public: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return out;
}

/** Follows `#/components/schemas/…` references. */
export function resolve(doc: OpenApiDoc, schema: JsonSchema): JsonSchema {
  let s = schema;
  for (let i = 0; s.$ref && i < 10; i++) {
    const name = s.$ref.replace('#/components/schemas/', '');
    s = doc.components?.schemas?.[name] ?? {};
  }
  return s;
}

/** The object properties of a body schema (top level), with nested objects' paths: `data.tagIds`. */
export function bodyFields(doc: OpenApiDoc, schema: JsonSchema | undefined, prefix = ''): { path: string; name: string; schema: JsonSchema }[] {
  if (!schema) return [];
  const s = firstAlternative(resolve(doc, schema));
  const out: { path: string; name: string; schema: JsonSchema }[] = [];
  for (const [name, raw] of Object.entries(s.properties ?? {})) {
    const field = firstAlternative(resolve(doc, raw));
    out.push({ path: prefix + name, name, schema: field });
    if (field.type === 'object' && field.properties) out.push(...bodyFields(doc, field, `${prefix}${name}.`));
  }
  return out;
}

/** The first non-null alternative of `anyOf`/`oneOf`, or the schema itself. */
export function firstAlternative(schema: JsonSchema): JsonSchema {
  const options = schema.anyOf ?? schema.oneOf;
  if (!options) return schema;
  return options.find((o) => o.type !== 'null') ?? options[0] ?? schema;
}

/** Sets `value` at a dotted path of `target` (creating objects on the way). */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]!] = value;
}

let counter = 0;

/**
 * A minimal valid value of `schema`: required properties only, the smallest allowed numbers,
 * the first enum member, an http(s) URL where a URL is expected, unique strings elsewhere (so
 * two creations with generated names do not collide).
 */
export function minimalValue(doc: OpenApiDoc, raw: JsonSchema, name = ''): unknown {
  const schema = firstAlternative(resolve(doc, raw));
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = minimalValue(doc, schema.properties?.[key] ?? {}, key);
      return out;
    }
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => minimalValue(doc, schema.items ?? {}, name));
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 0) : 1;
    case 'boolean':
      return false;
    default: {
      if (schema.format === 'uri' || /url|avatar|image|video/i.test(name)) return `https://example.com/generated-${++counter}`;
      if (schema.format === 'email') return `generated-${++counter}@example.com`;
      if (schema.format === 'date-time') return new Date().toISOString();
      const text = `generated-${++counter}`;
      return schema.maxLength !== undefined && text.length > schema.maxLength ? text.slice(0, schema.maxLength) : text;
    }
  }
}
