import type { Logger } from 'pino';
import type { TargetConfig } from '../config/load';
import { HttpCore, type HttpCoreOptions, type RequestObserver } from './http';
import type { ResponseBudget } from './response-budget';
import { Redactor } from '../util/secret';

/** What every API client needs besides its target's configuration. */
export interface ClientDeps {
  logger: Logger;
  observer?: RequestObserver;
  /** the process-wide bound on buffered response bytes, shared by every target's client */
  responseBudget?: ResponseBudget;
  /** retry pacing overrides (tests use short backoffs) */
  http?: Pick<HttpCoreOptions, 'backoffBaseMs' | 'maxRetryWaitMs'>;
}

/** Builds the shared HTTP core from a target's configuration. */
export function httpCoreFor(target: TargetConfig, deps: ClientDeps): HttpCore {
  return new HttpCore({
    target: target.name,
    baseUrl: target.url,
    tls: { ...(target.tls.ca ? { ca: target.tls.ca } : {}), insecureSkipVerify: target.tls.insecureSkipVerify },
    requestTimeoutMs: target.requestTimeout,
    maxConcurrency: target.maxConcurrency,
    maxAttempts: target.maxAttempts,
    maxResponseBytes: target.maxResponseBytes,
    ...(deps.observer ? { observer: deps.observer } : {}),
    ...(deps.responseBudget ? { responseBudget: deps.responseBudget } : {}),
    logger: deps.logger,
    // The password, and the Basic header's `user:password` (whose base64 is what the header carries).
    redactor: new Redactor([target.password.reveal(), `${target.username}:${target.password.reveal()}`]),
    ...deps.http,
  });
}
