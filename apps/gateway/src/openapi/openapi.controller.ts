import { Controller, Get, Header, Injectable, Param, Res } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { asyncApiDocument, DomainError } from '@workline/contracts';
import type { FastifyReply } from 'fastify';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ApiArea, ApiDoc } from './api-docs';

/** The gateway's OpenAPI document: built from the application when it starts (main.ts, openApiDocument). */
@Injectable()
export class ApiDescription {
  openApi: object = {};
}

/** Swagger UI's files, served from node_modules (the machines serving /docs may have no internet: no CDN). */
const UI_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/** Starts Swagger UI on the served document; a file of its own, so the page needs no inline script. */
const INIT_SCRIPT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/docs/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
};
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Workline API</title>
<link rel="stylesheet" href="/docs/swagger-ui/swagger-ui.css">
<style>body{margin:0;font-family:sans-serif}.links{padding:8px 20px;border-bottom:1px solid #ddd}</style>
</head><body>
<p class="links">The OpenAPI 3.1 description: <a href="/docs/openapi.json">/docs/openapi.json</a>.
The Kafka topics other services may consume (AsyncAPI 3): <a href="/docs/asyncapi.json">/docs/asyncapi.json</a>.</p>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui/workline-init.js"></script>
</body></html>
`;

/**
 * GET /docs (Swagger UI, working offline), the OpenAPI JSON of the HTTP API and the AsyncAPI JSON of the
 * Kafka topics.
 */
@Controller('docs')
@ApiArea('operations', 'none')
export class OpenApiController {
  // Derived from the contract classes' decorators once, when the gateway starts.
  private readonly topics = asyncApiDocument();
  private readonly files = new Map<string, Buffer>();

  constructor(private readonly description: ApiDescription) {
    const dir = dirname(require.resolve('swagger-ui-dist/package.json'));
    for (const name of Object.keys(UI_FILES)) this.files.set(name, readFileSync(join(dir, name)));
    this.files.set('workline-init.js', Buffer.from(INIT_SCRIPT));
  }

  @Get('openapi.json')
  @ApiDoc({
    summary: 'This API description (OpenAPI 3.1 JSON)',
    doc: 'docs/operations.md',
    ok: [200, 'OpenAPI document', { 'application/json': { type: 'object' } }],
  })
  json(): object {
    return this.description.openApi;
  }

  @Get('asyncapi.json')
  @ApiDoc({
    summary: 'The Kafka topics and their events (AsyncAPI 3 JSON)',
    doc: 'docs/events.md',
    ok: [200, 'AsyncAPI document', { 'application/json': { type: 'object' } }],
  })
  asyncApi(): object {
    return this.topics;
  }

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @ApiDoc({
    summary: 'This API description as an interactive page (Swagger UI)',
    doc: 'docs/operations.md',
    ok: [200, 'HTML', { 'text/html': { type: 'string' } }],
  })
  html(): string {
    return PAGE;
  }

  @Get('swagger-ui/:file')
  @ApiParam({ name: 'file', enum: [...Object.keys(UI_FILES), 'workline-init.js'] })
  @ApiDoc({
    summary: "The interactive page's files (Swagger UI, from the gateway's own node_modules)",
    doc: 'docs/operations.md',
    ok: [200, 'CSS or JavaScript', { 'text/javascript': { type: 'string' }, 'text/css': { type: 'string' } }],
    errors: [404],
  })
  asset(@Param('file') file: string, @Res() reply: FastifyReply): void {
    const body = this.files.get(file);
    if (!body) throw DomainError.notFound(`docs file ${file} not found`);
    void reply
      .code(200)
      .headers({
        'content-type': UI_FILES[file] ?? 'text/javascript; charset=utf-8',
        'cache-control': 'public, max-age=3600',
        'x-content-type-options': 'nosniff',
      })
      .send(body);
  }
}
