import { type CanActivate, type ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { safeEqual } from '@workline/secrets';
import type { Request } from 'express';
import { GatewayEnv } from '../gateway.env';

/** `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(private readonly env: GatewayEnv) {}

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !safeEqual(match[1], this.env.ADMIN_TOKEN)) {
      throw new UnauthorizedException('Missing or invalid admin token: send Authorization: Bearer <ADMIN_TOKEN>');
    }
    return true;
  }
}
