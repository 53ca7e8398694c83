import express, { type NextFunction, type Request, type Response } from 'express';
import { toHttpProblem } from './api-errors';
import { unsupportedMediaType, writeProblem } from './problem';

const hasBody = (req: Request) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/** Bodies under this prefix are raw bytes (presigned CSV and media uploads) that their handler streams. */
export const RAW_BODY_PREFIX = '/uploads/';

/**
 * JSON bodies for the API routes: a body with another content type is refused with 415 (instead of being
 * silently ignored); invalid JSON is 400 and an oversize body 413, each with a message saying so.
 */
export function jsonBody(limitBytes: number) {
  const parse = express.json({ limit: limitBytes, strict: false, type: ['application/json', 'application/*+json'] });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!['POST', 'PUT', 'PATCH'].includes(req.method) || !hasBody(req) || req.path.startsWith(RAW_BODY_PREFIX)) return next();
    if (!req.is(['application/json', 'application/*+json'])) return writeProblem(req, res, unsupportedMediaType(req.headers['content-type']));
    parse(req, res, (error?: unknown) => {
      if (!error) return next();
      const problem = toHttpProblem(error);
      if (!problem) return next(error);
      writeProblem(req, res, problem);
    });
  };
}
