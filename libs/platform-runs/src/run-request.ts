import { DomainError, ErrorCode, type PlatformApi, V3 } from '@workline/contracts';

/** Units of one run at most: the platform API's upper bound (the spec leaves it open). */
export const MAX_UNITS_PER_RUN = 10_000;

export type UnitInput = Record<string, unknown>;

/** A create request (v4 run or v3 batch) whose shape is valid; the line and the callback URL are checked next. */
export interface RunRequest {
  lineId: string;
  callbackUrl?: string;
  units: UnitInput[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The names of the request's keys in each API version. */
const NAMES: Record<PlatformApi, { line: string; units: string }> = {
  v4: { line: 'line_id', units: 'units' },
  v3: { line: 'template_id', units: 'resources' },
};

/**
 * Errors in each version's words: v4 answers 422 "Invalid request: ..." naming the key; v3 answers its
 * code table (103 body invalid, 107 no resources, 102 data invalid).
 */
export const runRequestErrors = (api: PlatformApi) => ({
  missing: (key: string) =>
    api === 'v4'
      ? new DomainError(ErrorCode.Validation, `Invalid request: missing key ${key}`, [{ field: key, message: `missing key ${key}` }])
      : new DomainError(ErrorCode.Validation, `Body is invalid: missing key ${key}`, undefined, V3.BodyInvalid),
  wrongType: (key: string, expected: string) =>
    api === 'v4'
      ? new DomainError(ErrorCode.Validation, `Invalid request: ${key} is not of the expected type (${expected})`, [
          { field: key, message: `${key} is not of the expected type (${expected})` },
        ])
      : new DomainError(
          ErrorCode.Validation,
          `Body is invalid: ${key} is not of the expected type (${expected})`,
          undefined,
          V3.BodyInvalid,
        ),
  noUnits: () =>
    api === 'v4'
      ? new DomainError(ErrorCode.Validation, 'Invalid request: units is not of the expected type (a non-empty array of objects)', [
          { field: 'units', message: 'units is not of the expected type (a non-empty array of objects)' },
        ])
      : new DomainError(ErrorCode.Validation, 'No resources were passed', undefined, V3.NoResources),
  badData: (key: string, message: string) =>
    api === 'v4'
      ? new DomainError(ErrorCode.Validation, `Invalid request: ${message}`, [{ field: key, message }])
      : new DomainError(ErrorCode.Validation, `Data is invalid: ${message}`, undefined, V3.DataInvalid),
  unknownLine: (lineId: string) =>
    api === 'v4'
      ? new DomainError(
          ErrorCode.Validation,
          'Invalid request: line_id is not of the expected type (the id of one of your production lines)',
          [{ field: 'line_id', message: `${lineId} is not one of your production lines` }],
        )
      : new DomainError(ErrorCode.NotFound, 'Template not found', undefined, V3.TemplateNotFound),
});

/** The body's JSON text (checked by the gateway's parser; a malformed one is refused all the same). */
export function parseBodyJson(api: PlatformApi, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw runRequestErrors(api).wrongType('(body)', 'a JSON object');
  }
}

/**
 * Checks the shape of a create request, reporting the first problem: a missing key before a wrong type,
 * the line before the units. Unknown top-level keys are ignored (docs/platform-api.md, Decisions).
 */
export function parseRunRequest(api: PlatformApi, body: unknown): RunRequest {
  const errors = runRequestErrors(api);
  const names = NAMES[api];
  if (!isObject(body)) throw errors.wrongType('(body)', 'a JSON object');
  if (body[names.line] === undefined) throw errors.missing(names.line);
  if (body[names.units] === undefined) {
    throw api === 'v4' ? errors.missing(names.units) : errors.noUnits();
  }
  const lineId = body[names.line];
  if (typeof lineId !== 'string' || !lineId) throw errors.wrongType(names.line, 'a non-empty string');
  const callbackUrl = body.callback_url;
  if (callbackUrl !== undefined && callbackUrl !== null && typeof callbackUrl !== 'string')
    throw errors.wrongType('callback_url', 'string');
  const units = body[names.units];
  if (!Array.isArray(units)) throw errors.wrongType(names.units, 'a non-empty array of objects');
  if (!units.length) throw errors.noUnits();
  if (units.length > MAX_UNITS_PER_RUN) {
    throw errors.badData(names.units, `${names.units} holds ${units.length} units, more than the ${MAX_UNITS_PER_RUN} a run may hold`);
  }
  const bad = units.findIndex((unit) => !isObject(unit));
  if (bad >= 0) {
    const key = `${names.units}[${bad}]`;
    throw api === 'v4' ? errors.wrongType(key, 'object') : errors.badData(key, `${key} is not of the expected type (object)`);
  }
  return { lineId, ...(typeof callbackUrl === 'string' ? { callbackUrl } : {}), units: units as UnitInput[] };
}
