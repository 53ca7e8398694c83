import { Injectable } from '@nestjs/common';
import { type Pipelined, RedisService, roundTrip } from '@workline/redis';

/**
 * Sends authentication's commands (the identity epoch, a failed-auth check, the caller's own command) in
 * one Redis round trip, shared with the other requests of the event-loop turn (libs/redis `roundTrip`).
 * Rejects when Redis cannot answer, at once when it is not connected. A unit test sends them to memory.
 */
@Injectable()
export class AuthenticationRoundTrip {
  constructor(private readonly redis: RedisService) {}

  send(...commands: Pipelined<unknown>[]): Promise<unknown[]> {
    return roundTrip(this.redis, ...commands);
  }
}
