import { Injectable } from '@nestjs/common';
import { type Pipelined, RedisScript, RedisService } from '@workline/redis';
import { randomUUID } from 'node:crypto';

const EPOCH_KEY = 'identity:epoch';

/**
 * Reads the epoch, first giving it a fresh random value when it is missing (Redis restarted or flushed),
 * so an entry cached before a flush can never match again.
 */
const READ_EPOCH = new RedisScript(
  'identityEpochRead',
  `
local epoch = redis.call('GET', KEYS[1])
if not epoch then
  epoch = ARGV[1]
  redis.call('SET', KEYS[1], epoch)
end
return epoch
`,
);

/**
 * The version of every identity in Redis: a random value replaced by each change that must take effect at
 * once (revocation, rotation, password reset). A gateway trusts a principal it cached only while the epoch
 * it read in the same round trip equals the one it read before looking the principal up in PostgreSQL;
 * random values (not a counter) so that a reset Redis never brings an old epoch back.
 */
@Injectable()
export class IdentityEpoch {
  constructor(private readonly redis: RedisService) {}

  read(): Pipelined<string> {
    return READ_EPOCH.command(this.redis, [EPOCH_KEY, randomUUID()], (reply) => String(reply));
  }

  /** Invalidates every gateway's cached principals; rejects when Redis cannot be reached. */
  async bump(): Promise<void> {
    await this.redis.set(EPOCH_KEY, randomUUID());
  }
}
