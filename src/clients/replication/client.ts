import { z } from 'zod';
import { ApiClient } from '../api-client';
import { ApiError } from '../errors';
import { queryString } from '../query-string';
import { validateItems } from '../response';
import { SpellingResolver, type ApiSpelling } from '../spelling';
import { groupSchema, protectedVmSchema, repClusterSchema, type ConsistencyGroup, type ProtectedVm, type RepCluster } from './schemas';

export * from './schemas';

const BASE = '/api/v1';

const CLUSTER_PATHS: Readonly<Record<ApiSpelling, string>> = { seed: '/rep-clusters', product: '/rp-clusters' };

/** The real plugin's names of the VM fields the seed spells otherwise; the internal model keeps the seed's. */
const PRODUCT_VM_FIELD_NAMES: Readonly<Partial<Record<keyof ProtectedVm, string>>> = { repClusterName: 'rpClusterName' };

/** A list request: partial response, only these fields are returned (and validated). */
export interface ListQuery<F extends string = string> {
  fields: readonly F[];
}

/** Field names come from code, not from users: a bad one is a programming error. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

/** Copies server-spelled fields to the internal names the item schema reads, in place: the record is a fresh parse nobody else holds. */
function withInternalNames(record: unknown, renames: ReadonlyArray<readonly [string, string]>): unknown {
  if (renames.length === 0 || !record || typeof record !== 'object') return record;
  const fields = record as Record<string, unknown>;
  for (const [internal, server] of renames) if (server in fields) fields[internal] = fields[server];
  return record;
}

/** The `fields=` parameter (a list's values joined by a literal comma), in the server's names, each name checked. */
function fieldsQuery(fields: readonly string[], serverNames: Readonly<Record<string, string>> = {}): string {
  for (const field of fields) if (!FIELD_NAME.test(field)) throw new Error(`"${field}" is not a valid field name`);
  return queryString({ fields: fields.length > 0 ? [...new Set(fields.map((field) => serverNames[field] ?? field))] : undefined });
}

/**
 * Client of the VM replication plugin (/api/v1): HTTP Basic on every request (the plugin has no session), bare JSON arrays
 * without paging. List calls name the fields they need (`fields=`), which keeps the large VM answers small. Spellings
 * (../spelling.ts): the seed's `/rep-clusters` and VM field `repClusterName`, or the real plugin's `/rp-clusters` and
 * `rpClusterName`. The plugin answers 400 to a `fields=` name it does not know, so VM lists wait for the spelling (found on
 * the cluster list, whose path differs) and ask only its names; records come back in the seed's names either way.
 */
export class ReplicationClient extends ApiClient {
  /** the spelling this target speaks: `known` once configured or detected */
  readonly spelling = new SpellingResolver(this.target.apiSpelling, 'replication', this.deps.logger);

  /** GET /api/v1/rep-clusters (rp-clusters) */
  clusters<F extends keyof RepCluster>(query: ListQuery<F>, signal?: AbortSignal): Promise<Pick<RepCluster, F>[]> {
    return this.spelling.resolve((spelling) => this.list(CLUSTER_PATHS[spelling], repClusterSchema, query, signal));
  }

  /** GET /api/v1/groups (consistency groups) */
  groups<F extends keyof ConsistencyGroup>(query: ListQuery<F>, signal?: AbortSignal): Promise<Pick<ConsistencyGroup, F>[]> {
    return this.list('/groups', groupSchema, query, signal);
  }

  /** GET /api/v1/vms (protected VMs), asked and read in the target's spelling */
  async vms<F extends keyof ProtectedVm>(query: ListQuery<F>, signal?: AbortSignal): Promise<Pick<ProtectedVm, F>[]> {
    // A spelled field asked before the spelling is known: it is found on the cluster list (the one path that differs), asking least.
    if (this.spelling.known === undefined && query.fields.some((field) => field in PRODUCT_VM_FIELD_NAMES)) {
      await this.clusters({ fields: ['id'] }, signal);
    }
    return this.list('/vms', protectedVmSchema, query, signal, this.spelling.known === 'product' ? PRODUCT_VM_FIELD_NAMES : undefined);
  }

  private async list<T extends z.ZodRawShape, F extends keyof z.output<z.ZodObject<T>>>(
    resource: string,
    schema: z.ZodObject<T>,
    query: ListQuery<F & string>,
    signal: AbortSignal | undefined,
    serverNames?: Readonly<Record<string, string>>,
  ): Promise<Pick<z.output<z.ZodObject<T>>, F>[]> {
    const endpoint = BASE + resource;
    const path = endpoint + fieldsQuery(query.fields, serverNames);
    const { body, status } = await this.fetchJson({ endpoint, path, signal });
    const problem = `unexpected response shape: expected an array, received ${body === null ? 'null' : typeof body}`;
    if (!Array.isArray(body)) throw new ApiError('protocol', endpoint, problem, status);
    const renames = serverNames ? Object.entries(serverNames) : [];
    // Only the asked fields are checked (the others were not asked for), item by item: a bad item is skipped and counted.
    const shape: z.ZodRawShape = schema.shape;
    const itemSchema = query.fields.length > 0 ? z.object(Object.fromEntries(query.fields.map((field) => [field, shape[field]]))) : schema;
    const items = validateItems(itemSchema, body.map((raw) => withInternalNames(raw, renames)), endpoint, '');
    return items as Pick<z.output<z.ZodObject<T>>, F>[];
  }
}
