import { Injectable } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { Principal } from '@workline/identity';
import type { Pipelined } from '@workline/redis';
import { type QuotaReservation, TaskQuota } from '@workline/task-quota';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RoundTripRider } from '../auth/authentication';

/** A reservation made in authentication's Redis round trip, before the request reached its handler. */
interface EarlyReservation {
  workstreamId: string;
  reservation: QuotaReservation;
  /** A handler answers for it (uses or gives it back), or the response hook gave it back. */
  claimed: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    taskQuota?: EarlyReservation;
  }
  interface FastifyContextConfig {
    /** The route creates tasks: authentication's Redis round trip reserves a unit of the workstream's quota. */
    usesTaskQuota?: boolean;
  }
}

/** Marks the route that creates tasks (its handler claims the reservation: TaskQuotaRider.claim). */
export const UsesTaskQuota = () => RouteConfig({ usesTaskQuota: true });

/**
 * The task quota (libs/task-quota) on the request path. For a workstream's API key a creation is counted in
 * authentication's Redis round trip (a rider: one round trip per task creation, issue 13), and given back
 * when the request is answered without its handler taking it (a body refused with 400, 413 or 415, a rate
 * limit's 429, a credential revoked since it was cached) or abandoned.
 */
@Injectable()
export class TaskQuotaRider implements RoundTripRider {
  constructor(private readonly quota: TaskQuota) {}

  /** The reservation counted with the request's authentication (the caller's now, to use or give back), else a new one. */
  async claim(request: FastifyRequest, workstreamId: string): Promise<QuotaReservation> {
    const early = request.taskQuota;
    if (early && !early.claimed && early.workstreamId === workstreamId) {
      early.claimed = true;
      return early.reservation;
    }
    return this.quota.reserve(workstreamId);
  }

  wants(request: FastifyRequest): boolean {
    return request.routeOptions.config?.usesTaskQuota === true;
  }

  command(request: FastifyRequest, principal: Principal): Pipelined<void> | undefined {
    if (principal.kind !== 'api-key' || !principal.workstreamId) return undefined;
    const workstreamId = principal.workstreamId;
    const reservation = this.quota.reservation(workstreamId);
    return {
      queue: reservation.queue,
      read: (reply) => {
        request.taskQuota = { workstreamId, reservation: reservation.read(reply), claimed: false };
      },
    };
  }

  /**
   * Gives back what was counted with the authentication of a request that is answered (or abandoned) without
   * its handler having claimed it, before the answer leaves: a client told 400 or 429 finds its quota as it was.
   */
  install(fastify: FastifyInstance): void {
    fastify.decorateRequest('taskQuota', undefined);
    const giveBack = async (request: FastifyRequest) => {
      const early = request.taskQuota;
      if (!early || early.claimed) return;
      early.claimed = true;
      if ('release' in early.reservation) await early.reservation.release();
    };
    fastify.addHook('onSend', async (request, _reply, payload) => {
      await giveBack(request);
      return payload;
    });
    fastify.addHook('onRequestAbort', giveBack);
  }
}
