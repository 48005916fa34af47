import type { Logger } from 'pino';
import type { TargetConfig } from '../config/load';
import { HttpCore, type HttpCoreOptions, type RequestObserver } from './http';

/** What every API client needs besides its target's configuration. */
export interface ClientDeps {
  logger: Logger;
  observer?: RequestObserver;
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
    ...(deps.observer ? { observer: deps.observer } : {}),
    logger: deps.logger,
    ...deps.http,
  });
}
