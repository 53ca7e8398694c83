import { type DynamicModule, RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { loadEnv } from '@workline/config';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayEnv } from '../gateway.env';
import { GatewayModule } from '../gateway.module';
import { documentedOperations, openApiDocument } from './openapi';

type ModuleRef = Type | DynamicModule | Promise<DynamicModule>;

/** Every controller the gateway module tree declares, static and dynamic modules alike. */
function controllersOf(ref: ModuleRef, seen = new Set<unknown>()): Type[] {
  if (ref instanceof Promise || seen.has(ref)) return [];
  seen.add(ref);
  const dynamic = 'module' in ref ? ref : undefined;
  const cls = (dynamic ? dynamic.module : ref) as Type;
  const controllers: Type[] = [...(Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, cls) ?? []), ...(dynamic?.controllers ?? [])];
  const imports: ModuleRef[] = [...(Reflect.getMetadata(MODULE_METADATA.IMPORTS, cls) ?? []), ...(dynamic?.imports ?? [])];
  return [...controllers, ...imports.flatMap((child) => controllersOf(child, seen))];
}

const routePath = (...parts: string[]) => `/${parts.flatMap((p) => p.split('/')).filter(Boolean).join('/')}`;

/** "METHOD /path/{param}" of every handler, from Nest's route metadata (what the router registers). */
function registeredRoutes(): string[] {
  const env = loadEnv(GatewayEnv, { ADMIN_TOKEN: 'openapi-spec-token-0123456789' });
  return controllersOf(GatewayModule.register(env)).flatMap((controller) => {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    return Object.getOwnPropertyNames(controller.prototype)
      .filter((name) => name !== 'constructor')
      .map((name) => controller.prototype[name] as unknown)
      .filter((handler): handler is object => typeof handler === 'function' && Reflect.hasMetadata(PATH_METADATA, handler))
      .map((handler) => {
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const path = routePath(base, String(Reflect.getMetadata(PATH_METADATA, handler))).replace(/:(\w+)/g, '{$1}');
        return `${method} ${path}`;
      });
  });
}

describe('OpenAPI document', () => {
  it('documents exactly the routes the gateway registers', () => {
    const documented = documentedOperations().map((op) => `${op.method.toUpperCase()} ${op.path}`).sort();
    const registered = registeredRoutes().sort();
    expect(registered.length).toBeGreaterThan(30);
    expect(documented).toEqual(registered);
  });

  it('is committed as docs/openapi.json (npm run openapi writes it)', () => {
    const committed = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'openapi.json'), 'utf8');
    expect(committed).toBe(`${JSON.stringify(openApiDocument(), null, 2)}\n`);
  });

  it('gives every operation a success status, an error list and unique operation ids', () => {
    const doc = openApiDocument() as { openapi: string; paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };
    expect(doc.openapi).toMatch(/^3\./);
    const ids = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const methods of Object.values(doc.paths)) {
      for (const op of Object.values(methods)) expect(Object.keys(op.responses).some((status) => /^2/.test(status))).toBe(true);
    }
  });
});
