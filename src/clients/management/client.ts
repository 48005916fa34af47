import { z } from 'zod';
import type { TargetConfig } from '../../config/load';
import { httpCoreFor, type ClientDeps } from '../core-factory';
import { ApiError } from '../errors';
import type { HttpCore } from '../http';
import { errorForStatus, loginRejected, parseJson, validate, validateItems } from '../response';
import { ENDPOINTS, assetCopiesPath, assetPath } from './endpoints';
import { and, isIn, type Filter } from './filter';
import { isLiveCopy, liveCopiesOnly } from './copy-states';
import { queryString } from '../query-string';
import { collectAll, randomPages, serialPages, type ListSpec, type PageFetcher, type PageRequest } from './paging';
import { partitionedRandomPages, type PartitionKey } from './partitioned';
import {
  activitySchema,
  alertSchema,
  assetSchema,
  auditLogSchema,
  cloudDrSessionSchema,
  complianceSchema,
  copyMetricsSchema,
  copySchema,
  inventorySourceSchema,
  latestCopySchema,
  loginResponseSchema,
  protectionPolicySchema,
  type Activity,
  type Alert,
  type Asset,
  type AuditLog,
  type CloudDrSession,
  type ComplianceDetail,
  type Copy,
  type CopyMetrics,
  type InventorySource,
  type LatestCopy,
  type ProtectionPolicy,
} from './schemas';
import { TokenSession, type IssuedToken } from '../token-session';

export interface ListOptions {
  filter?: Filter;
  /** e.g. "createTime DESC" */
  orderby?: string;
  /** default: the target's pageSize */
  pageSize?: number;
}

/** The partition key of listings whose items have an id. */
const BY_ID: PartitionKey = { field: 'id', nullable: false };
/** The partition key of compliance results, which have no id and whose assetId may be null. */
const BY_ASSET_ID: PartitionKey = { field: 'assetId', nullable: true };
/** The token's lifetime when the login answer has no expires_in. */
const DEFAULT_TOKEN_TTL_SECONDS = 3600;
/** Asset ids per latest-copies request (api-notes: batch many ids per request). */
export const LATEST_COPIES_BATCH = 100;

/**
 * Client of the management service (/api/v2): bearer login shared by all
 * requests of the target (renewed before expires_in ends, once more on a 401),
 * random and serial paging, item checks, and one method per listing the
 * collectors read. Every method takes the collector's AbortSignal.
 */
export class ManagementClient {
  protected readonly http: HttpCore;
  private readonly session: TokenSession;

  constructor(
    readonly target: TargetConfig,
    protected readonly deps: ClientDeps,
  ) {
    this.http = httpCoreFor(target, deps);
    this.session = new TokenSession({
      login: () => this.login(),
      loginEndpoint: ENDPOINTS.login,
      logger: deps.logger,
      redactor: this.http.redactor,
    });
  }

  /** logins performed so far */
  get logins(): number {
    return this.session.logins;
  }

  // ---- listings ---------------------------------------------------------

  /** Assets (serial paging). Deleted ones are included when the service lists them: callers check `deleted`. */
  assets(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<Asset[]> {
    return this.serialPages(this.spec(ENDPOINTS.assets, '/api/v2/assets', assetSchema, options), signal);
  }

  /**
   * One asset's live copies (random paging: the endpoint offers nothing
   * else; over 10,000 copies, in ranges of id); the filter leaves
   * deletion-state copies out, and the items are checked again after reading.
   */
  async *assetCopies(assetId: string, options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<Copy[]> {
    const live: ListOptions = { filter: and(options.filter, liveCopiesOnly()), orderby: options.orderby, pageSize: options.pageSize };
    for await (const page of this.partitionedPages(ENDPOINTS.assetCopies, assetCopiesPath(assetId), copySchema, live, BY_ID, signal)) {
      const copies = page.filter(isLiveCopy);
      if (copies.length > 0) yield copies;
    }
  }

  /**
   * The newest live copy of each of the given assets (at most
   * LATEST_COPIES_BATCH ids), in one request. The endpoint documents only
   * `filter`, and with strict REST validation on the service answers 400 to
   * anything else (page, pageSize): the batch fits the default page, and an
   * answer that says it has more pages is an error rather than a silent cut.
   */
  async latestCopies(assetIds: readonly string[], signal?: AbortSignal): Promise<LatestCopy[]> {
    if (assetIds.length === 0) return [];
    if (assetIds.length > LATEST_COPIES_BATCH) throw new RangeError(`latest-copies takes at most ${LATEST_COPIES_BATCH} ids a request`);
    const endpoint = ENDPOINTS.latestCopies;
    const filter = and(isIn('assetId', assetIds), liveCopiesOnly()).toString();
    const path = endpoint + queryString({ filter });
    const { body, status } = await this.fetchJson({ endpoint, path, idempotent: true, ...(signal ? { signal } : {}) });
    const envelope = validate(body, endpoint, singlePageEnvelope, status);
    const totalPages = envelope.page?.totalPages;
    if (totalPages != null && totalPages > 1) {
      const problem = `${totalPages} pages for ${assetIds.length} assets: the endpoint takes no paging parameters`;
      throw new ApiError('protocol', endpoint, problem, status);
    }
    return validateItems(latestCopySchema, envelope.content, endpoint, 'content').filter(isLiveCopy);
  }

  /**
   * Random paging with page and pageSize only: the endpoint takes no filter,
   * so it cannot be read in ranges, and over 10,000 rows only the first
   * 10,000 can be read by documented means. Those are read, with a warning
   * that says how many rows were left unread.
   */
  copyMetrics(signal?: AbortSignal): AsyncGenerator<CopyMetrics[]> {
    const endpoint = ENDPOINTS.copyMetrics;
    const cutAtLimit = (totalElements: number, read: number): void => {
      const message = 'copy-metrics lists more rows than random paging may read: the rows past the 10000th are not read';
      this.deps.logger.warn({ endpoint, totalElements, read }, message);
    };
    const spec: ListSpec<typeof copyMetricsSchema> = { ...this.spec(endpoint, endpoint, copyMetricsSchema, {}), query: {}, cutAtLimit };
    return randomPages((request) => this.fetchJson(request), spec, signal, this.target.maxConcurrency);
  }

  activities(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<Activity[]> {
    return this.serialPages(this.spec(ENDPOINTS.activities, '/api/v2/activities', activitySchema, options), signal);
  }

  auditLogs(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<AuditLog[]> {
    return this.serialPages(this.spec(ENDPOINTS.auditLogs, '/api/v2/audit-logs', auditLogSchema, options), signal);
  }

  alerts(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<Alert[]> {
    return this.serialPages(this.spec(ENDPOINTS.alerts, '/api/v2/alerts', alertSchema, options), signal);
  }

  /** Random paging; over 10,000 results, in ranges of id. */
  protectionPolicies(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<ProtectionPolicy[]> {
    const { protectionPolicies } = ENDPOINTS;
    return this.partitionedPages(protectionPolicies, protectionPolicies, protectionPolicySchema, options, BY_ID, signal);
  }

  /** Random paging; over 10,000 results, in ranges of assetId (a result has no id; its assetId may be null). */
  complianceDetails(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<ComplianceDetail[]> {
    const { complianceDetails } = ENDPOINTS;
    return this.partitionedPages(complianceDetails, complianceDetails, complianceSchema, options, BY_ASSET_ID, signal);
  }

  /** Random paging; over 10,000 results, in ranges of id. */
  inventorySources(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<InventorySource[]> {
    return this.partitionedPages(ENDPOINTS.inventorySources, '/api/v2/inventory-sources', inventorySourceSchema, options, BY_ID, signal);
  }

  /**
   * Cloud DR sessions, every page. The service answers `{content, pageInfo}`
   * (pageInfo as a random page's `page`); a bare array and `{content}`
   * without paging information are read as the whole list.
   */
  async cloudDrSessions(signal?: AbortSignal): Promise<CloudDrSession[]> {
    const endpoint = ENDPOINTS.cloudDrSessions;
    const spec = this.spec(endpoint, endpoint, cloudDrSessionSchema, {});
    const fetchPage: PageFetcher = async (request) => {
      const answer = await this.fetchJson(request);
      return { body: asRandomPage(answer.body), status: answer.status };
    };
    return collectAll(randomPages(fetchPage, spec, signal));
  }

  // ---- generic access ---------------------------------------------------

  /**
   * Random paging of a listing that offers nothing else, kept under the
   * service's 10,000-result rule by reading a larger query in ranges of `key`.
   */
  partitionedPages<S extends z.ZodType>(
    endpoint: string,
    path: string,
    schema: S,
    options: ListOptions,
    key: PartitionKey,
    signal?: AbortSignal,
  ): AsyncGenerator<Array<z.output<S>>> {
    const listing = {
      specFor: (filter: Filter | undefined) => this.spec(endpoint, path, schema, { ...options, filter }),
      filter: options.filter,
      key,
    };
    return partitionedRandomPages((request) => this.fetchJson(request), listing, signal, this.deps.logger, this.target.maxConcurrency);
  }

  /** Serial (queryState) paging of any listing that offers it, with its item schema. */
  serialPages<S extends z.ZodType>(spec: ListSpec<S>, signal?: AbortSignal): AsyncGenerator<Array<z.output<S>>> {
    return serialPages((request) => this.fetchJson(request), spec, signal);
  }

  /** One asset by id (GET /api/v2/assets/{id}); undefined when the service answers 404. */
  async asset(assetId: string, signal?: AbortSignal): Promise<Asset | undefined> {
    try {
      const { body, status } = await this.fetchJson({ endpoint: ENDPOINTS.asset, path: assetPath(assetId), ...(signal ? { signal } : {}) });
      return validate(body, ENDPOINTS.asset, assetSchema, status);
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'status' && error.status === 404) return undefined;
      throw error;
    }
  }

  /** A GET with the bearer token (see TokenSession.send for the 401); the parsed JSON of a 2xx answer, an ApiError otherwise. */
  async fetchJson(request: PageRequest): Promise<{ body: unknown; status: number }> {
    const response = await this.session.send(request.endpoint, request.signal, (token) =>
      this.http.request({ method: 'GET', ...request, headers: bearer(token) }),
    );
    if (response.status < 200 || response.status >= 300) throw errorForStatus(response, request.endpoint);
    return { body: parseJson(response, request.endpoint), status: response.status };
  }

  /** Logs out (when logged in) and closes the connections; never throws. */
  async close(): Promise<void> {
    const { logout } = ENDPOINTS;
    await this.session.close((token, signal) =>
      this.http.request({ method: 'POST', endpoint: logout, path: logout, headers: bearer(token), signal, idempotent: false }),
    );
    await this.http.close();
  }

  // ---- internals --------------------------------------------------------

  private spec<S extends z.ZodType>(endpoint: string, path: string, schema: S, options: ListOptions): ListSpec<S> {
    return {
      endpoint,
      path,
      schema,
      pageSize: options.pageSize ?? this.target.pageSize,
      maxItems: this.target.maxListingItems,
      query: { filter: options.filter?.toString(), orderby: options.orderby },
    };
  }

  private async login(): Promise<IssuedToken> {
    const endpoint = ENDPOINTS.login;
    const response = await this.http.request({
      method: 'POST',
      endpoint,
      path: endpoint,
      body: { username: this.target.username, password: this.target.password.reveal() },
    });
    const rejected = loginRejected(response, endpoint, this.target.username);
    if (rejected) throw rejected;
    if (response.status < 200 || response.status >= 300) throw errorForStatus(response, endpoint, 'login');
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      // No parser message here: it may quote part of the body, which holds the token.
      throw new ApiError('parse', endpoint, `malformed JSON in a ${response.text.length}-byte login response`, response.status);
    }
    const parsed = validate(body, endpoint, loginResponseSchema, response.status);
    return { value: parsed.access_token, expiresInSeconds: parsed.expires_in ?? DEFAULT_TOKEN_TTL_SECONDS };
  }
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** latest-copies' answer: one page, whatever page information it carries */
const singlePageEnvelope = z.object({
  content: z.array(z.unknown()),
  page: z.object({ totalPages: z.number().int().nonnegative().nullish() }).nullish(),
});

/** A cloud DR answer in the shape random paging reads: `pageInfo` becomes `page`, a bare array a one-page list. */
function asRandomPage(body: unknown): unknown {
  if (Array.isArray(body)) return { content: body };
  if (body !== null && typeof body === 'object' && 'pageInfo' in body && !('page' in body)) {
    const { pageInfo, ...rest } = body as Record<string, unknown>;
    return { ...rest, page: pageInfo };
  }
  return body;
}
