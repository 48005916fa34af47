import { z } from 'zod';
import type { TargetConfig } from '../../config/load';
import { httpCoreFor, type ClientDeps } from '../core-factory';
import { ApiError } from '../errors';
import { parseJson, type HttpCore } from '../http';
import { describeIssues, expectStatus, parseBody } from '../response';
import { TimeSlices } from '../../util/time-slices';
import { listQueryString, type ListQuery } from './query';
import {
  groupSchema,
  protectedVmSchema,
  repClusterSchema,
  type ConsistencyGroup,
  type ProtectedVm,
  type RepCluster,
} from './schemas';

export { desc, type ListFilter, type ListQuery } from './query';
export * from './schemas';

const BASE = '/api/v1';

const itemSchemas = new WeakMap<z.ZodObject, Map<string, z.ZodType>>();

/**
 * The schema of a list item with only the projected fields (the others were
 * not asked for), built once per item schema and field list: zod compiles a
 * schema on its first use, and a new one per request made every 5,000-VM
 * answer pay that again.
 */
function itemSchema(schema: z.ZodObject, fields: readonly string[]): z.ZodType {
  let byFields = itemSchemas.get(schema);
  if (!byFields) itemSchemas.set(schema, (byFields = new Map()));
  const key = fields.join(',');
  let item = byFields.get(key);
  if (!item) {
    const shape = schema.shape as Record<string, z.ZodType>;
    item = fields.length > 0 ? z.object(Object.fromEntries(fields.map((field) => [field, shape[field] as z.ZodType]))) : schema;
    byFields.set(key, item);
  }
  return item;
}

/**
 * Client of the VM replication plugin (/api/v1): HTTP Basic on every request
 * (the plugin has no session), bare JSON arrays without paging. List calls
 * name the fields they need (`fields=`), which keeps the plugin's large VM
 * answers small, and get records typed and validated for exactly those fields.
 * Retries on 429/503 with Retry-After, time limits and TLS are the shared
 * HttpCore's.
 */
export class ReplicationClient {
  protected readonly http: HttpCore;

  constructor(
    readonly target: TargetConfig,
    protected readonly deps: ClientDeps,
  ) {
    this.http = httpCoreFor(target, deps);
  }

  /** GET /api/v1/rep-clusters */
  clusters<F extends keyof RepCluster>(query: ListQuery<F>, signal?: AbortSignal): Promise<Pick<RepCluster, F>[]> {
    return this.list('/rep-clusters', repClusterSchema, query, signal);
  }

  /** GET /api/v1/rep-cluster/{id}: the whole record */
  async cluster(id: string, signal?: AbortSignal): Promise<RepCluster> {
    const endpoint = `${BASE}/rep-cluster/{id}`;
    const response = await this.get(`${BASE}/rep-cluster/${encodeURIComponent(id)}`, endpoint, signal);
    return parseBody(response, endpoint, repClusterSchema);
  }

  /** GET /api/v1/groups (consistency groups) */
  groups<F extends keyof ConsistencyGroup>(query: ListQuery<F>, signal?: AbortSignal): Promise<Pick<ConsistencyGroup, F>[]> {
    return this.list('/groups', groupSchema, query, signal);
  }

  /** GET /api/v1/vms (protected VMs) */
  vms<F extends keyof ProtectedVm>(query: ListQuery<F>, signal?: AbortSignal): Promise<Pick<ProtectedVm, F>[]> {
    return this.list('/vms', protectedVmSchema, query, signal);
  }

  /** The plugin has no session to end: closes the connections. */
  async close(): Promise<void> {
    await this.http.close();
  }

  private async list<T extends z.ZodRawShape, F extends keyof z.output<z.ZodObject<T>>>(
    resource: string,
    schema: z.ZodObject<T>,
    query: ListQuery<F & string>,
    signal: AbortSignal | undefined,
  ): Promise<Pick<z.output<z.ZodObject<T>>, F>[]> {
    const endpoint = BASE + resource;
    const response = await this.get(endpoint + listQueryString(query), endpoint, signal);
    const body = parseJson(response, endpoint);
    if (!Array.isArray(body)) throw new ApiError('protocol', endpoint, `unexpected response shape: expected an array, received ${body === null ? 'null' : typeof body}`, response.status);
    // Item by item in time slices: checking a 5,000-VM answer in one piece held /metrics scrapes for 100-200 ms on a loaded machine.
    const item = itemSchema(schema, query.fields);
    const items: unknown[] = new Array(body.length);
    const slices = new TimeSlices();
    for (let index = 0; index < body.length; index++) {
      const result = item.safeParse(body[index]);
      if (!result.success) throw new ApiError('protocol', endpoint, `unexpected response shape: ${describeIssues(result.error, `[${index}]`)}`, response.status);
      items[index] = result.data;
      if (slices.due()) await slices.next();
    }
    return items as Pick<z.output<z.ZodObject<T>>, F>[];
  }

  private async get(path: string, endpoint: string, signal: AbortSignal | undefined) {
    const response = await this.http.request({
      method: 'GET',
      path,
      endpoint,
      headers: { authorization: this.basicAuthorization() },
      ...(signal ? { signal } : {}),
    });
    expectStatus(response, endpoint);
    return response;
  }

  /** Built per request, so the revealed password is never kept in a field that could be logged. */
  private basicAuthorization(): string {
    const credentials = `${this.target.username}:${this.target.password.reveal()}`;
    return `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
  }
}
