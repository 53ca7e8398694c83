import { Controller, Get, Res } from '@nestjs/common';
import { DomainError } from '@workline/contracts';
import type { FastifyReply } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ApiArea, ApiDoc } from '../openapi/api-docs';

/** The console's files and their types: a fixed list, so no request can name a path outside it. */
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
};

/** apps/gateway/console, found from the source tree or from the build output (dist mirrors the tree). */
function consoleDirectory(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'apps', 'gateway', 'console');
    if (existsSync(path.join(candidate, 'index.html'))) return candidate;
  }
  throw new Error('apps/gateway/console not found above ' + __dirname);
}

/**
 * The web console (docs/console.md): static files with no build step, served by the gateway so that the
 * browser talks to the public, work and delivery APIs on the same origin.
 */
@Controller('console')
@ApiArea('operations', 'none')
export class ConsoleController {
  private readonly files = new Map<string, Buffer>();

  constructor() {
    const dir = consoleDirectory();
    for (const name of Object.keys(FILES)) this.files.set(name, readFileSync(path.join(dir, name)));
  }

  @Get()
  @ApiDoc({
    summary: 'The web console (worker and operator views)',
    doc: 'docs/console.md',
    ok: [200, 'HTML', { 'text/html': { type: 'string' } }],
  })
  index(@Res() reply: FastifyReply): void {
    this.send(reply, 'index.html');
  }

  // One route per file (not `:file`): the routes are the fixed list, and each is documented in OpenAPI.
  @Get('console.js')
  @ApiDoc({ summary: 'The web console script', doc: 'docs/console.md', ok: [200, 'JavaScript', { 'text/javascript': { type: 'string' } }] })
  script(@Res() reply: FastifyReply): void {
    this.send(reply, 'console.js');
  }

  @Get('console.css')
  @ApiDoc({ summary: 'The web console styles', doc: 'docs/console.md', ok: [200, 'CSS', { 'text/css': { type: 'string' } }] })
  styles(@Res() reply: FastifyReply): void {
    this.send(reply, 'console.css');
  }

  private send(reply: FastifyReply, name: string): void {
    const body = this.files.get(name);
    if (!body) throw DomainError.notFound(`console file ${name} not found`);
    void reply
      .code(200)
      .headers({ 'content-type': FILES[name], 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' })
      .send(body);
  }
}
