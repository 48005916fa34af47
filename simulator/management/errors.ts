/**
 * The management service's error body: {code, reason, remediation, timestamp,
 * path, extendedInfo}. code equals the HTTP status, timestamp is epoch ms,
 * extendedInfo is always null. Its own reasons never echo credentials or tokens (a fault's may: see FaultRule).
 */
import http from 'node:http';
import type { Request, Response } from 'express';

export interface ErrorBody {
  code: number;
  reason: string;
  remediation: string | null;
  timestamp: number;
  path: string;
  extendedInfo: null;
}

const DEFAULTS: Record<number, { reason: string; remediation: string | null }> = {
  400: { reason: 'The request is not valid', remediation: 'Correct the request and send it again' },
  401: { reason: 'The access token is missing, invalid or expired', remediation: 'Log in again with POST /api/v2/login and send the new access token' },
  403: { reason: 'The user lacks the privileges for this operation', remediation: 'Use an account with a role that may run this operation' },
  429: { reason: 'Too many requests', remediation: 'Retry later' },
  500: { reason: 'An unexpected error occurred', remediation: 'Retry the request; contact support if it persists' },
  502: { reason: 'Bad gateway', remediation: 'Retry the request later' },
  503: { reason: 'The service is temporarily unavailable', remediation: 'Retry the request later' },
  504: { reason: 'The request timed out', remediation: 'Retry the request later' },
};

export function pathOf(req: Request): string {
  const url = req.originalUrl || req.url;
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

export function errorBody(status: number, path: string, reason?: string, remediation?: string | null): ErrorBody {
  const fallback = DEFAULTS[status];
  return {
    code: status,
    reason: reason ?? fallback?.reason ?? http.STATUS_CODES[status] ?? 'Error',
    remediation: remediation !== undefined ? remediation : (fallback?.remediation ?? null),
    timestamp: Date.now(),
    path,
    extendedInfo: null,
  };
}

/** the body of an error the service answers with, for injected faults too (see core/server.ts) */
export function managementErrorBody(status: number, req: Request, reason?: string): unknown {
  const path = pathOf(req);
  if (reason !== undefined) return errorBody(status, path, reason);
  if (status === 404) return errorBody(404, path, `The resource ${path} is not supported`, 'Check the path and the identifier');
  if (status === 405) return errorBody(405, path, `Method ${req.method} is not supported on ${path}`, 'Use one of the methods listed in the Allow header');
  return errorBody(status, path);
}

export function sendError(res: Response, req: Request, status: number, reason?: string, remediation?: string | null): void {
  res.status(status).json(reason === undefined ? managementErrorBody(status, req) : errorBody(status, pathOf(req), reason, remediation));
}
