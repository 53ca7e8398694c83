import { HttpStatus, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { GatewayEnv } from '../gateway.env';
import { writeProblem } from '../http/problem';

/** RFC 8594 Sunset and the Deprecation header on every v3 answer; 410 once an operator switches v3 off. */
@Injectable()
export class V3DeprecationMiddleware implements NestMiddleware {
  constructor(private readonly env: GatewayEnv) {}

  use(request: Request, response: Response, next: NextFunction): void {
    response.setHeader('Deprecation', 'true');
    response.setHeader('Sunset', 'Mon, 25 Dec 2017 00:00:00 GMT');
    response.setHeader('Link', '</docs/v3-migration.md>; rel="deprecation"');
    if (!this.env.v3Enabled) {
      writeProblem(request, response, { status: HttpStatus.GONE, message: 'The platform API v3 is withdrawn: use /v4 (docs/v3-migration.md)' });
      return;
    }
    next();
  }
}
