import { z } from 'zod';
import type { TargetConfig } from '../../config/load';
import { ApiClient, type ClientDeps } from '../api-client';
import { ApiError, isStatusError } from '../errors';
import { parseJson, validate, validateItems } from '../response';
import { ENDPOINTS, withId } from './endpoints';
import { and, isIn, type Filter } from './filter';
import { isLiveCopy, liveCopiesOnly } from './copy-states';
import { queryString } from '../query-string';
import { RANDOM_PAGING_LIMIT, collectAll, randomPages, serialPages, type ListSpec, type PageFetcher } from './paging';
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
import type { TokenApi } from '../token-session';

export interface ListOptions {
  filter?: Filter;
}

const BY_ID: PartitionKey = { field: 'id', nullable: false };
/** The partition key of compliance results, which have no id and whose assetId may be null. */
const BY_ASSET_ID: PartitionKey = { field: 'assetId', nullable: true };
/** The token's lifetime when the login answer has no expires_in. */
const DEFAULT_TOKEN_TTL_SECONDS = 3600;
/** Asset ids per latest-copies request (api-notes: batch many ids per request). */
export const LATEST_COPIES_BATCH = 100;

/** Client of the management service (/api/v2): a bearer login session, random and serial paging, one method per listing read. */
export class ManagementClient extends ApiClient {
  private readonly fetchPage: PageFetcher = (request) => this.fetchJson(request);

  constructor(target: TargetConfig, deps: ClientDeps) {
    super(target, deps, BEARER_LOGIN);
  }

  /** Assets (serial paging). Deleted ones are included when the service lists them: callers check `deleted`. */
  assets(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<Asset[]> {
    return serialPages(this.fetchPage, this.spec(ENDPOINTS.assets, assetSchema, options), signal);
  }

  /** One asset's live copies (random paging; over 10,000, in ranges of id): deletion states are filtered out and checked again after. */
  async *assetCopies(assetId: string, options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<Copy[]> {
    const live: ListOptions = { ...options, filter: and(options.filter, liveCopiesOnly()) };
    const path = withId(ENDPOINTS.assetCopies, assetId);
    for await (const page of this.partitionedPages(ENDPOINTS.assetCopies, copySchema, live, BY_ID, signal, path)) {
      const copies = page.filter(isLiveCopy);
      if (copies.length > 0) yield copies;
    }
  }

  /**
   * The newest live copy of each given asset, in one request, and the assets one of whose items failed its checks (their newest
   * copy is unknown). The endpoint documents only `filter`, and with strict REST validation the service answers 400 to page or
   * pageSize: the batch fits the default page; more pages are an error, not a cut.
   */
  async latestCopies(assetIds: readonly string[], signal?: AbortSignal): Promise<{ copies: LatestCopy[]; unreadable: string[] }> {
    if (assetIds.length === 0) return { copies: [], unreadable: [] };
    if (assetIds.length > LATEST_COPIES_BATCH) throw new RangeError(`latest-copies takes at most ${LATEST_COPIES_BATCH} ids a request`);
    const endpoint = ENDPOINTS.latestCopies;
    const filter = and(isIn('assetId', assetIds), liveCopiesOnly()).toString();
    const path = endpoint + queryString({ filter });
    const { body, status } = await this.fetchJson({ endpoint, path, idempotent: true, signal });
    const envelope = validate(body, endpoint, singlePageEnvelope, status);
    const totalPages = envelope.page?.totalPages;
    const totalElements = envelope.page?.totalElements;
    // a count of copies past what the page holds is a page after it, whether or not totalPages says so
    const morePages = totalPages != null ? totalPages > 1 : totalElements != null && totalElements > envelope.content.length;
    if (morePages) {
      const pages = totalPages != null ? `${totalPages} pages` : `${totalElements} copies counted, ${envelope.content.length} on the page,`;
      const problem = `${pages} for ${assetIds.length} assets: the endpoint takes no paging parameters`;
      throw new ApiError('protocol', endpoint, problem, status);
    }
    const unreadable: string[] = [];
    const skipped = (item: unknown): void => {
      const assetId = (item as { assetId?: unknown } | null)?.assetId;
      unreadable.push(...(typeof assetId === 'string' ? [assetId] : assetIds)); // an item naming no asset may be any one's
    };
    const items = validateItems(latestCopySchema, envelope.content, endpoint, 'content', skipped);
    const copies = items.filter(isLiveCopy);
    // A newest copy in a deletion state (the state term not applied): the asset's newest live copy is unknown, not absent.
    const live = new Set(copies.map((copy) => copy.assetId));
    for (const item of items) if (!isLiveCopy(item) && !live.has(item.assetId)) unreadable.push(item.assetId);
    return { copies, unreadable };
  }

  /** No filter, so no ranges: of over 10,000 rows the first 10,000 are readable by documented means; a warning says how many are not. */
  copyMetrics(signal?: AbortSignal): AsyncGenerator<CopyMetrics[]> {
    const endpoint = ENDPOINTS.copyMetrics;
    const cutAtLimit = (totalElements: number, read: number): void => {
      const message = 'copy-metrics lists more rows than random paging may read: the rows past the 10000th are not read';
      this.deps.logger.warn({ endpoint, totalElements, read }, message);
    };
    // pages that end exactly at the 10,000th row: at a pageSize that does not divide it, the last page under it would stop short
    const pageSize = pageSizeDividing(RANDOM_PAGING_LIMIT, this.target.pageSize);
    const spec = { ...this.spec(endpoint, copyMetricsSchema, {}), pageSize, cutAtLimit };
    return randomPages(this.fetchPage, spec, signal, this.target.maxConcurrency);
  }

  activities(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<Activity[]> {
    return serialPages(this.fetchPage, this.spec(ENDPOINTS.activities, activitySchema, options), signal);
  }

  auditLogs(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<AuditLog[]> {
    return serialPages(this.fetchPage, this.spec(ENDPOINTS.auditLogs, auditLogSchema, options), signal);
  }

  alerts(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<Alert[]> {
    return serialPages(this.fetchPage, this.spec(ENDPOINTS.alerts, alertSchema, options), signal);
  }

  /** Random paging; over 10,000 results, in ranges of id. */
  protectionPolicies(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<ProtectionPolicy[]> {
    return this.partitionedPages(ENDPOINTS.protectionPolicies, protectionPolicySchema, options, BY_ID, signal);
  }

  /** Random paging; over 10,000 results, in ranges of assetId (a result has no id; its assetId may be null). */
  complianceDetails(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<ComplianceDetail[]> {
    return this.partitionedPages(ENDPOINTS.complianceDetails, complianceSchema, options, BY_ASSET_ID, signal);
  }

  /** Random paging; over 10,000 results, in ranges of id. */
  inventorySources(options: ListOptions = {}, signal?: AbortSignal): AsyncGenerator<InventorySource[]> {
    return this.partitionedPages(ENDPOINTS.inventorySources, inventorySourceSchema, options, BY_ID, signal);
  }

  /** Every page; the service answers `{content, pageInfo}`, and a bare array or `{content}` without paging is the whole list. */
  async cloudDrSessions(signal?: AbortSignal): Promise<CloudDrSession[]> {
    const spec = this.spec(ENDPOINTS.cloudDrSessions, cloudDrSessionSchema, {});
    const fetchPage: PageFetcher = async (request) => {
      const answer = await this.fetchJson(request);
      return { body: asRandomPage(answer.body), status: answer.status };
    };
    return collectAll(randomPages(fetchPage, spec, signal));
  }

  /** Random paging of a listing that offers nothing else, under the 10,000-result rule by reading a larger query in ranges of `key`. */
  partitionedPages<S extends z.ZodType>(
    endpoint: string,
    schema: S,
    options: ListOptions,
    key: PartitionKey,
    signal?: AbortSignal,
    path = endpoint,
  ): AsyncGenerator<Array<z.output<S>>> {
    const spec = this.spec(endpoint, schema, options, path);
    return partitionedRandomPages(this.fetchPage, spec, key, signal, this.deps.logger, this.target.maxConcurrency);
  }

  /** One asset by id (GET /api/v2/assets/{id}); undefined when the service answers 404. */
  async asset(assetId: string, signal?: AbortSignal): Promise<Asset | undefined> {
    try {
      const { body, status } = await this.fetchJson({ endpoint: ENDPOINTS.asset, path: withId(ENDPOINTS.asset, assetId), signal });
      return validate(body, ENDPOINTS.asset, assetSchema, status);
    } catch (error) {
      if (isStatusError(error, 404)) return undefined;
      throw error;
    }
  }

  private spec<S extends z.ZodType>(endpoint: string, schema: S, options: ListOptions, path = endpoint): ListSpec<S> {
    const { pageSize, maxListingItems: maxItems } = this.target;
    const pagesCountResults = endpoint === ENDPOINTS.complianceDetails; // api-notes: its pages may hold more records than pageSize
    return { endpoint, path, schema, pageSize, maxItems, filter: options.filter, pagesCountResults };
  }
}

/** The management service's bearer login: the token and its lifetime in the JSON answer, ended by POST /logout. */
const BEARER_LOGIN: TokenApi = {
  loginPath: ENDPOINTS.login,
  logout: { method: 'POST', path: ENDPOINTS.logout, idempotent: false },
  carry: (token) => ({ authorization: `Bearer ${token}` }),
  issued(response) {
    const parsed = validate(parseJson(response, ENDPOINTS.login, 'login response'), ENDPOINTS.login, loginResponseSchema, response.status);
    return { value: parsed.access_token, expiresInSeconds: parsed.expires_in ?? DEFAULT_TOKEN_TTL_SECONDS };
  },
};

/** The largest page size up to `most` that divides `limit` (1 always does). */
function pageSizeDividing(limit: number, most: number): number {
  for (let size = Math.min(most, limit); size > 1; size--) if (limit % size === 0) return size;
  return 1;
}

/** latest-copies' answer: one page, whatever page information it carries */
const singlePageEnvelope = z.object({
  content: z.array(z.unknown()),
  page: z
    .object({ totalPages: z.number().int().nonnegative().nullish(), totalElements: z.number().int().nonnegative().nullish() })
    .nullish(),
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
