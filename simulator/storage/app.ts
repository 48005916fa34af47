import express from 'express';
import type { Express, NextFunction, Request, Response, Router } from 'express';
import http from 'node:http';
import type { SimContext } from '../core/context';
import type { ApiSpelling } from '../types';
import { AUTH_HEADER, TokenStore, credentialsMatch } from './auth';
import type { StorageEstate, StorageSystem, Tier } from './model';
import { TIERS } from './model';
import { QueryError, filterPredicate, pageRequest, slicePage, sortKeys, sortRows, type PageRequest } from './query';

/** An archive tier the system does not use: the model leaves physical_capacity optional, and this entry gives none. */
const ARCHIVE_TIER = { tier: 'archive', logical_capacity: { total: 0, used: 0, available: 0 }, compression_factor: 0 };

/** The real appliance and center answer 400 to a larger `size`, whatever their spelling (api-notes). */
export const PRODUCT_MAX_PAGE_SIZE = 200;

/**
 * The storage error body. The seed does not show one; the simulator answers
 * `{code, details}` (the link response's keys), code being the HTTP status.
 */
export function storageErrorBody(status: number, _req?: Request, details?: string): { code: number; details: string } {
  return { code: status, details: details ?? http.STATUS_CODES[status] ?? 'Error' };
}

/** A management center: lists every system; SYSTEM-ID 0 is an Invalid System ID error. */
export function createStorageCenterApp(estate: StorageEstate, ctx: SimContext, spelling: ApiSpelling = 'seed'): Express {
  return createStorageApp(estate, ctx, { kind: 'center' }, spelling);
}

/** One stand-alone appliance (estate.systems[systemIndex]): SYSTEM-ID 0 and its own id address it. */
export function createStorageApplianceApp(estate: StorageEstate, systemIndex: number, ctx: SimContext, spelling: ApiSpelling = 'seed'): Express {
  const system = estate.systems[systemIndex];
  if (!system) throw new RangeError(`no storage system #${systemIndex} (the estate has ${estate.systems.length})`);
  return createStorageApp(estate, ctx, { kind: 'appliance', systemId: system.id }, spelling);
}

type Variant = { kind: 'center' } | { kind: 'appliance'; systemId: string };

/**
 * What differs between the spellings: the systems collection and where a
 * capacity sample carries its figures. Pages are read the same way in both.
 */
interface Spelled {
  spelling: ApiSpelling;
  /** `/store-systems` or `/dd-systems` */
  systems: string;
  page(query: Record<string, unknown>): PageRequest;
}

function spelled(spelling: ApiSpelling): Spelled {
  return {
    spelling,
    systems: spelling === 'product' ? '/dd-systems' : '/store-systems',
    page(query) {
      const request = pageRequest(query);
      if (request.size > PRODUCT_MAX_PAGE_SIZE) {
        throw new QueryError(`Invalid value for size: ${request.size} (at most ${PRODUCT_MAX_PAGE_SIZE})`);
      }
      return request;
    },
  };
}

interface Locals {
  system: Readonly<StorageSystem>;
}

/**
 * Both variants serve the same resources under `/rest/vX.Y/...` and
 * `/api/vN/...` (any version number in its base path's form: the simulator does
 * not tie resources to versions), in one spelling: the other one's paths are 404 Resource not
 * found, as on the real products. JSON only: an Accept header that excludes
 * JSON gets 406, an XML request body 415.
 */
function createStorageApp(estate: StorageEstate, ctx: SimContext, variant: Variant, spelling: ApiSpelling): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const tokens = new TokenStore(ctx.clock, ctx.tokenTtlSeconds);

  app.use((req, res, next) => {
    if (req.headers.accept && !req.accepts('application/json')) return fail(res, 406, 'Only application/json responses are supported');
    const contentType = req.headers['content-type'];
    if (contentType && /xml/i.test(contentType)) return fail(res, 415, 'Only application/json request bodies are supported');
    // A stand-alone appliance that is unreachable answers nothing useful at all.
    if (variant.kind === 'appliance' && !estate.system(variant.systemId)?.reachable) return fail(res, 503, 'System is not reachable');
    next();
  });
  // "With neither header, both request and response are JSON": parse bodies without Content-Type too.
  app.use(express.json({ type: (req) => !req.headers['content-type'] || /json/i.test(String(req.headers['content-type'])) }));

  const api = express.Router({ mergeParams: true });
  mountAuth(api, ctx, tokens);
  mountResources(api, estate, variant, spelled(spelling));

  // The seed's base paths: `/rest/<API-VERSION>` with versions like v1.0, v2.0 (every release) and `/api/<API-VERSION>` with
  // versions like v1, v2 (7.2 and later); a version in the other form's spelling names no resource.
  const checkVersion = (form: RegExp) => (req: Request, res: Response, next: NextFunction) => {
    if (form.test(String(req.params.version))) return next();
    fail(res, 404, 'Unknown API version');
  };
  app.use('/rest/:version', checkVersion(/^v\d+\.\d+$/), api);
  app.use('/api/:version', checkVersion(/^v\d+$/), api);

  app.use((_req: Request, res: Response) => fail(res, 404, 'Resource not found'));
  // Malformed JSON bodies and bad query values end here.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof QueryError) return fail(res, 400, err.message);
    const status = typeof err === 'object' && err !== null && 'status' in err && typeof err.status === 'number' ? err.status : 500;
    fail(res, status >= 400 && status < 600 ? status : 500, status === 500 ? 'Internal error' : 'Bad request');
  });
  return app;
}

function fail(res: Response, status: number, details?: string): void {
  res.status(status).json(storageErrorBody(status, undefined, details));
}

function mountAuth(api: Router, ctx: SimContext, tokens: TokenStore): void {
  api.post('/auth', (req, res) => {
    // api-notes: {username, password}; real appliances also accept {auth_info: {...}}.
    const body = (req.body ?? {}) as { username?: unknown; password?: unknown; auth_info?: { username?: unknown; password?: unknown } };
    const creds = body.auth_info ?? body;
    if (!credentialsMatch(creds.username, creds.password, ctx.username, ctx.password)) return fail(res, 401, 'Invalid credentials');
    res.setHeader('X-DD-AUTH-TOKEN', tokens.issue());
    res.status(201).json({ details: 'success', code: 0, user_role: 'admin' });
  });
  api.delete('/auth', (req, res) => {
    const token = req.get(AUTH_HEADER);
    if (!tokens.use(token)) return fail(res, 401, 'Missing or invalid X-DD-AUTH-TOKEN');
    tokens.revoke(token as string);
    res.status(200).json({ details: 'success', code: 0 });
  });
  api.use((req, res, next) => {
    if (tokens.use(req.get(AUTH_HEADER))) return next();
    fail(res, 401, 'Missing or invalid X-DD-AUTH-TOKEN');
  });
}

function mountResources(api: Router, estate: StorageEstate, variant: Variant, spelling: Spelled): void {
  const systems = spelling.systems;
  const system = (res: Response) => (res.locals as Locals).system;
  const encodedId = (res: Response) => encodeURIComponent(system(res).id);

  api.get('/system', (_req, res) => {
    res.json(variant.kind === 'center' ? centerSystemBody(estate) : applianceSystemBody(estate, variant.systemId));
  });

  api.get(systems, (req, res) => {
    const listed = variant.kind === 'center' ? estate.systems : estate.systems.filter((s) => s.id === variant.systemId);
    const rows = listed.map((s) => ({
      id: s.id,
      name: s.name,
      version: s.version,
      model: s.model,
      serialno: s.serialno,
      connection_status: s.reachable ? 'connected' : 'disconnected',
    }));
    const { items, paging_info } = slicePage(sortRows(rows.filter(filterPredicate(req.query)), sortKeys(req.query)), spelling.page(req.query));
    res.json({ system: items, paging_info });
  });

  // Resolves SYSTEM-ID (URL-decoded by express) for everything below /store-systems/{id} (or dd-systems).
  api.use(`${systems}/:systemId`, (req: Request, res: Response, next: NextFunction) => {
    const id = String(req.params.systemId);
    let resolved: Readonly<StorageSystem> | undefined;
    if (variant.kind === 'center') {
      if (id === '0') return fail(res, 400, 'Invalid System ID');
      resolved = estate.system(id);
    } else if (id === '0' || id === variant.systemId) {
      resolved = estate.system(variant.systemId);
    }
    if (!resolved) return fail(res, 404, `System ${id} not found`);
    if (!resolved.reachable) return fail(res, 503, `System ${resolved.name} is not reachable`);
    (res.locals as Locals).system = resolved;
    next();
  });

  // Incomplete paths answer the link response so a client can correct itself.
  const link = (children: (req: Request, res: Response) => Array<[string, string]>) => (req: Request, res: Response) => {
    const base = `${req.protocol}://${req.get('host') ?? '127.0.0.1'}${req.baseUrl}`;
    res.json({ details: 'success', code: 0, link: children(req, res).map(([rel, path]) => ({ rel, href: `${base}${path}` })) });
  };
  api.get(
    `${systems}/:systemId`,
    link((_req, res) => {
      const self = `${systems}/${encodedId(res)}`;
      return [['parent', systems], ...['alerts', 'mtrees', 'mtree-replications', 'protocols', 'stats', 'users'].map((c): [string, string] => [c, `${self}/${c}`])];
    }),
  );
  api.get(
    `${systems}/:systemId/protocols`,
    link((_req, res) => {
      const self = `${systems}/${encodedId(res)}`;
      return [['parent', self], ...['vdisk', 'nfs', 'boost', 'cifs'].map((c): [string, string] => [c, `${self}/protocols/${c}`])];
    }),
  );
  api.get(
    `${systems}/:systemId/stats`,
    link((_req, res) => {
      const self = `${systems}/${encodedId(res)}`;
      return [['parent', self], ['capacity', `${self}/stats/capacity`]];
    }),
  );

  api.get(`${systems}/:systemId/stats/capacity`, (req, res) => {
    if (spelling.spelling === 'product') return productCapacity(req, res);
    const tier = tierParam(req.query.tier);
    const tiers = tier ? [tier] : TIERS;
    const keys = sortKeys(req.query);
    const systemId = system(res).id;
    const page = spelling.page(req.query);
    const epochs = estate.sampleEpochs();
    let samples;
    if (keys.length === 0 || (keys.length === 1 && keys[0]?.field === 'collection_epoch')) {
      // Fast path: samples are a function of (epoch, tier), so only the page asked for is computed.
      const ordered = keys[0]?.descending ? epochs.slice().reverse() : epochs;
      const pairs = ordered.flatMap((epoch) => tiers.map((t) => [epoch, t] as const));
      const { items, paging_info } = slicePage(pairs, page);
      samples = { items: items.map(([epoch, t]) => withExtras(estate.capacityAt(systemId, t, epoch))), paging_info };
    } else {
      const all = epochs.flatMap((epoch) => tiers.map((t) => withExtras(estate.capacityAt(systemId, t, epoch))));
      samples = slicePage(sortRows(all, keys), page);
    }
    res.json({ stats_capacity: samples.items, paging_info: samples.paging_info });
  });

  /**
   * The real products' samples: one per collection, its figures only in
   * `tier_capacity_usage[]` (every tier, whatever `tier=` asks, and an empty
   * archive tier), nothing at the top level but collection_epoch.
   */
  const productCapacity = (req: Request, res: Response) => {
    tierParam(req.query.tier);
    const keys = sortKeys(req.query);
    const systemId = system(res).id;
    const epochs = sortRows(estate.sampleEpochs().map((epoch) => ({ collection_epoch: epoch })), keys);
    const { items, paging_info } = slicePage(epochs, spelling.page(req.query));
    const stats_capacity = items.map(({ collection_epoch }) => ({
      collection_epoch,
      tier_capacity_usage: [
        ...TIERS.map((tier) => {
          const sample = estate.capacityAt(systemId, tier, collection_epoch);
          return { tier, physical_capacity: sample.physical_capacity, logical_capacity: sample.logical_capacity, compression_factor: sample.compression_factor };
        }),
        ARCHIVE_TIER,
      ],
    }));
    res.json({ stats_capacity, paging_info });
  };

  api.get(`${systems}/:systemId/alerts`, (req, res) => {
    const rows = estate.alerts(system(res).id).map((a) => ({ ...a }));
    const { items, paging_info } = slicePage(sortRows(rows.filter(filterPredicate(req.query)), sortKeys(req.query)), spelling.page(req.query));
    res.json({ alert_list: items, paging_info });
  });

  api.get(`${systems}/:systemId/mtrees`, (req, res) => {
    const rows = estate.mtrees(system(res).id).map((t) => ({ id: t.id, name: t.name, tenant_unit: null, del_status: 'available' }));
    const { items, paging_info } = slicePage(sortRows(rows.filter(filterPredicate(req.query)), sortKeys(req.query)), spelling.page(req.query));
    res.json({ mtree: items, paging_info });
  });

  const findMtree = (req: Request, res: Response) => estate.mtrees(system(res).id).find((t) => t.id === String(req.params.mtreeId));
  api.get(`${systems}/:systemId/mtrees/:mtreeId`, (req, res) => {
    const mtree = findMtree(req, res);
    if (!mtree) return fail(res, 404, 'MTree not found');
    res.json({ id: mtree.id, name: mtree.name, tenant_unit: null, del_status: 'available' });
  });
  api.get(`${systems}/:systemId/mtrees/:mtreeId/stats/capacity`, (req, res) => {
    const mtree = findMtree(req, res);
    if (!mtree) return fail(res, 404, 'MTree not found');
    const systemId = system(res).id;
    const rows = estate.sampleEpochs().map((epoch) => {
      const c = estate.mtreeCapacityAt(systemId, mtree.id, epoch);
      return {
        collection_epoch: epoch,
        physical_capacity: { used: c?.physical_used ?? 0 },
        logical_capacity: { used: c?.logical_used ?? 0 },
        compression_factor: c?.compression_factor ?? 0,
      };
    });
    const { items, paging_info } = slicePage(sortRows(rows, sortKeys(req.query)), spelling.page(req.query));
    res.json({ stats_capacity: items, paging_info });
  });

  api.get(`${systems}/:systemId/mtree-replications`, (req, res) => {
    const rows = estate.contexts(system(res).id).map((c) => ({ ...c, throttle_rate: 'unlimited' }));
    const { items, paging_info } = slicePage(sortRows(rows.filter(filterPredicate(req.query)), sortKeys(req.query)), spelling.page(req.query));
    res.json({ contexts: items, paging_info });
  });
}

function tierParam(value: unknown): Tier | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'string' && (TIERS as readonly string[]).includes(value)) return value as Tier;
  throw new QueryError(`Invalid tier: ${String(value)} (active, cloud or total)`);
}

/** a field the exporter does not know, to keep clients tolerant */
function withExtras<T extends object>(sample: T): T & { cleanable_capacity: number } {
  return { ...sample, cleanable_capacity: 0 };
}

function centerSystemBody(estate: StorageEstate) {
  const c = estate.center;
  return { name: c.name, version: c.version, serialno: c.serialno, model: c.model, uuid: c.uuid, type: 'DDMC', managed_systems: estate.systems.length, uptime_secs: estate.centerUptimeSeconds() };
}

function applianceSystemBody(estate: StorageEstate, systemId: string) {
  const s = estate.system(systemId) as StorageSystem;
  const usage = TIERS.map((tier) => {
    const sample = estate.newestCapacity(systemId, tier);
    return { tier, physical_capacity: sample.physical_capacity, logical_capacity: sample.logical_capacity, compression_factor: sample.compression_factor };
  });
  const total = usage[2] as (typeof usage)[number];
  const uptime = estate.uptimeSeconds(systemId);
  return {
    name: s.name,
    version: s.version,
    serialno: s.serialno,
    model: s.model,
    uuid: s.uuid,
    type: 'DD',
    uptime_secs: uptime,
    uptime: `${Math.floor(uptime / 86_400)} days, ${Math.floor((uptime % 86_400) / 3600)}:${String(Math.floor((uptime % 3600) / 60)).padStart(2, '0')}`,
    physical_capacity: total.physical_capacity,
    logical_capacity: total.logical_capacity,
    compression_factor: total.compression_factor,
    capacity_usage_details: usage,
    ha_info: { ha_status: 'na', peer_serialno: null },
  };
}
