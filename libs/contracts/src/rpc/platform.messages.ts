import { IsString } from 'class-validator';
import { ListRunsQuery } from '../http/platform.dto';

/**
 * Platform API (v4, and the deprecated v3 over the same runs). The gateway authenticates the account and
 * passes the body as it came: platform-runs validates it, because the v4 and v3 error texts and codes are
 * part of the contract and are chosen by the domain (DomainError.v3Code for v3).
 */
export type PlatformApi = 'v4' | 'v3';

export interface LineListRequest {
  account_id: string;
}

export interface RunCreateRequest {
  account_id: string;
  api: PlatformApi;
  /**
   * The request body as the client sent it (valid JSON text, decoded): forwarded as it came rather than
   * parsed and serialised again (a 10,000-unit run is ~0.8 MB); platform-runs parses it once.
   */
  body_json: string;
  /** The client's Idempotency-Key (already checked by the gateway with parseIdempotencyKey). */
  idempotency_key?: string;
}

/** RpcPattern.RunCreate's answer: the creation view (v4 or v3), and whether it replays an earlier creation. */
export interface RunCreateReply {
  view: object;
  replayed: boolean;
}

export interface RunGetRequest {
  account_id: string;
  api: PlatformApi;
  run_id: string;
  /** Unit pagination (extension): both or none; without them every unit is returned. */
  units_offset?: number;
  units_limit?: number;
}

export interface RunAbortRequest {
  account_id: string;
  run_id: string;
}

/** Topic.RunAbortRequested: abort is asynchronous; platform-runs applies it from its own outbox. */
export class RunAbortRequestedEvent {
  @IsString() run_id!: string;
  @IsString() account_id!: string;
}

/** RpcPattern.RunList: the admin API's listing of every account's runs. */
export class RunListRequest extends ListRunsQuery {}
