import { Controller, Get, Header } from '@nestjs/common';
import { asyncApiDocument } from '@workline/contracts';
import { documentedOperations, openApiDocument } from './openapi';

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * GET /docs (a plain HTML list: the machines serving it may have no internet, so no CDN viewer), the
 * OpenAPI JSON of the HTTP API and the AsyncAPI JSON of the Kafka topics.
 */
@Controller('docs')
export class OpenApiController {
  // Derived from the contract classes' decorators once, when the gateway starts.
  private readonly topics = asyncApiDocument();

  @Get('openapi.json')
  json(): object {
    return openApiDocument();
  }

  @Get('asyncapi.json')
  asyncApi(): object {
    return this.topics;
  }

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  html(): string {
    const rows = documentedOperations()
      .map((op) => `<tr><td>${op.method.toUpperCase()}</td><td><code>${escape(op.path)}</code></td><td>${escape(op.tag)}</td><td>${escape(op.security)}</td><td>${escape(op.summary)}</td></tr>`)
      .join('\n');
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Workline API</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}</style>
</head><body>
<h1>Workline API</h1>
<p>The OpenAPI 3 description: <a href="/docs/openapi.json">/docs/openapi.json</a>. The Kafka topics other services may consume (AsyncAPI 3): <a href="/docs/asyncapi.json">/docs/asyncapi.json</a>.</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Group</th><th>Authentication</th><th>Summary</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
  }
}
