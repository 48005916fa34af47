/**
 * The HTTP routes of the simulated management service under /api/v2.
 * Unknown paths answer 404 and known paths with another method 405, both with
 * the service's error body; everything but login needs a bearer token. With
 * strict REST validation (the default) a query parameter a route does not take
 * is a 400, on the routes that read one resource as on the lists.
 */
import http from 'node:http';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { SimContext } from '../core/context';
import { Sessions } from './auth';
import { renderCopy } from './copies';
import { errorBody, managementErrorBody, pathOf, sendError } from './errors';
import { FilterError, compileFilter, pinnedValues } from './filter';
import {
  activityList,
  alertList,
  assetList,
  auditList,
  complianceList,
  copyFields,
  copyList,
  copyMetricsList,
  inventorySourceList,
  latestCopyList,
  policyList,
  storageSystemList,
} from './lists';
import type { ManagementEstate } from './model';
import { HttpError, Lister, arraySeq, type ListQuery } from './paging';
import { renderActivity } from './activities';
import { policyView } from './views';

const API = '/api/v2';

/** `query: 'own'`: the handler reads and checks its query parameters (the lists); any other route takes none. */
type Route = { method: 'get' | 'post' | 'delete'; handler: RequestHandler; open?: boolean; query?: 'own' };

export function createManagementApp(estate: ManagementEstate, ctx: SimContext): Express {
  const state = estate.state;
  const sessions = new Sessions(ctx);
  const lister = new Lister();
  const now = (): number => ctx.clock.now().getTime();
  const listQuery = (req: Request, params: readonly string[] = LIST_PARAMS): ListQuery => queryOf(req, params, ctx.strictRestValidation !== false);

  const routes: Record<string, Route[]> = {
    '/login': [{ method: 'post', open: true, handler: login }],
    '/logout': [
      {
        method: 'post',
        handler: (_req, res) => {
          sessions.logout(res.locals.accessToken as string);
          res.status(204).end();
        },
      },
    ],
    '/assets': [{ method: 'get', query: 'own', handler: (req, res) => void res.json(lister.serve(assetList(state), listQuery(req))) }],
    '/assets/:id': [
      {
        method: 'get',
        handler: (req, res) => void res.json(found(state.assetById.get(param(req, 'id'))?.api, 'asset', param(req, 'id'))),
      },
    ],
    '/assets/:id/copies': [
      {
        method: 'get',
        query: 'own',
        handler: (req, res) => {
          const asset = found(state.assetById.get(param(req, 'id')), 'asset', param(req, 'id'));
          res.json(lister.serve(copyList(state, asset), listQuery(req)));
        },
      },
    ],
    '/copies/:id': [
      {
        method: 'get',
        handler: (req, res) => void res.json(renderCopy(found(state.copyById.get(param(req, 'id')), 'copy', param(req, 'id')), now())),
      },
    ],
    '/latest-copies': [{ method: 'get', query: 'own', handler: latestCopies }],
    '/copy-metrics': [{ method: 'get', query: 'own', handler: (req, res) => void res.json(lister.serve(copyMetricsList(state), listQuery(req, ['page', 'pageSize']))) }],
    '/activities': [{ method: 'get', query: 'own', handler: (req, res) => void res.json(lister.serve(activityList(state), listQuery(req))) }],
    '/activities/:id': [
      {
        method: 'get',
        handler: (req, res) => void res.json(renderActivity(found(state.activityById.get(param(req, 'id')), 'activity', param(req, 'id')), now())),
      },
    ],
    '/audit-logs': [{ method: 'get', query: 'own', handler: (req, res) => void res.json(lister.serve(auditList(state), listQuery(req))) }],
    '/protection-policies': [{ method: 'get', query: 'own', handler: (req, res) => void res.json(lister.serve(policyList(state), listQuery(req))) }],
    '/protection-policies/:id': [
      {
        method: 'get',
        handler: (req, res) => {
          const policy = found(state.policies.find((p) => p.api.id === param(req, 'id')), 'protection policy', param(req, 'id'));
          res.json(policyView(state, policy));
        },
      },
    ],
    '/compliance-details': [{ method: 'get', query: 'own', handler: (req, res) => void res.json(lister.serve(complianceList(state), listQuery(req))) }],
    '/inventory-sources': [{ method: 'get', query: 'own', handler: (req, res) => void res.json(lister.serve(inventorySourceList(state), listQuery(req))) }],
    '/cloud-dr-sessions': [{ method: 'get', query: 'own', handler: cloudDrSessions }],
    '/cloud-dr-sessions/:id': [
      {
        method: 'delete',
        handler: (req, res) => {
          found(state.cloudDrSessions.find((s) => s.id === param(req, 'id')), 'cloud DR session', param(req, 'id'));
          estate.removeCloudDrSession(param(req, 'id'));
          res.status(204).end();
        },
      },
    ],
    '/alerts': [{ method: 'get', query: 'own', handler: (req, res) => void res.json(lister.serve(alertList(state), listQuery(req))) }],
    '/storage-systems': [{ method: 'get', query: 'own', handler: (req, res) => void res.json(lister.serve(storageSystemList(state), listQuery(req))) }],
  };

  function login(req: Request, res: Response): void {
    const body = req.body as unknown;
    const { username, password } = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    if (typeof username !== 'string' || typeof password !== 'string' || username === '' || password === '') {
      throw new HttpError(400, 'username and password are required strings', 'Send {"username": "...", "password": "..."} as JSON');
    }
    const known = username === ctx.username || (ctx.userRoleUsername !== undefined && username === ctx.userRoleUsername);
    if (!known || password !== ctx.password) {
      throw new HttpError(401, 'Invalid username or password', 'Check the credentials and log in again');
    }
    res.json(sessions.login(username));
  }

  /** Allowed to the admin (and restore-admin) roles only; pages as {content, pageInfo}. */
  function cloudDrSessions(req: Request, res: Response): void {
    if (res.locals.username !== ctx.username) {
      throw new HttpError(403, 'The user lacks the privileges for this operation', 'Cloud DR sessions need the Administrator or Restore Administrator role');
    }
    const query = listQuery(req);
    const page = lister.serve({ name: 'cloud DR sessions', fields: {}, items: () => arraySeq(state.cloudDrSessions), render: (s) => ({ ...s }), stamp: () => `${state.version}`, paging: 'random' }, query) as {
      content: unknown[];
      page?: unknown;
    };
    res.json({ content: page.content, pageInfo: page.page });
  }

  function latestCopies(req: Request, res: Response): void {
    // With strict REST validation off the service reads page and pageSize too.
    const query = listQuery(req, ctx.strictRestValidation === false ? LIST_PARAMS : ['filter']);
    const required = 'Send filter=assetId in ("<id>", ...) naming the assets';
    if (query.filter === undefined || query.filter.trim() === '') throw new HttpError(400, 'latest-copies requires a filter on assetId', required);
    const fields = copyFields(now());
    let compiled;
    try {
      compiled = compileFilter(query.filter, fields);
    } catch (err) {
      if (err instanceof FilterError) throw new HttpError(400, `Invalid filter: ${err.message}`, required);
      throw err;
    }
    const ids = pinnedValues(compiled.ast, 'assetId');
    if (!ids) throw new HttpError(400, 'latest-copies requires the filter to name assets with assetId eq or assetId in (...)', required);
    const source = latestCopyList(state, ids.filter((v): v is string => typeof v === 'string'), compiled.predicate);
    res.json(lister.serve(source, { ...(query.page !== undefined ? { page: query.page } : {}), ...(query.pageSize !== undefined ? { pageSize: query.pageSize } : {}) }));
  }

  /** A route that takes no query parameters: with strict REST validation any one is a 400, as on the lists. */
  const noQuery: RequestHandler = (req, _res, next) => {
    queryOf(req, [], ctx.strictRestValidation !== false);
    next();
  };

  const app = express();
  app.disable('x-powered-by');
  // a page of a thousand assets is megabytes: hashing it for an ETag costs more than it saves
  app.set('etag', false);
  app.use(`${API}/login`, express.json({ limit: '64kb' }));

  for (const [path, handlers] of Object.entries(routes)) {
    const route = app.route(`${API}${path}`);
    const allowed = handlers.map((h) => h.method.toUpperCase());
    for (const h of handlers) {
      const checks = [...(h.open ? [] : [sessions.require]), ...(h.query === 'own' ? [] : [noQuery])];
      route[h.method](...checks, h.handler);
    }
    route.all((req: Request, res: Response) => {
      res.setHeader('Allow', allowed.join(', '));
      res.status(405).json(managementErrorBody(405, req));
    });
  }
  app.use((req: Request, res: Response) => void res.status(404).json(managementErrorBody(404, req)));
  // express 5 routes thrown errors here
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof HttpError) return sendError(res, req, err.status, err.message, err.remediation);
    const status = (err as { status?: number; type?: string }).status;
    if ((err as { type?: string }).type === 'entity.parse.failed') return sendError(res, req, 400, 'The request body is not valid JSON');
    // The seed's statuses: a body too large (413) or in an unsupported charset or encoding (415) is its 400 "excessive size" or "bad syntax".
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return SEED_CLIENT_ERRORS.has(status) ? sendError(res, req, status) : sendError(res, req, 400, `The request body cannot be read (${http.STATUS_CODES[status] ?? status})`);
    }
    res.status(500).json(errorBody(500, pathOf(req)));
  });
  return app;
}

function param(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}

function found<T>(value: T | undefined, what: string, id: string): T {
  if (value === undefined) throw new HttpError(404, `The ${what} ${id} does not exist`, 'Check the identifier');
  return value;
}

/** The 4xx statuses the seed's Errors table gives the service (its "other status codes used" are all 2xx). */
const SEED_CLIENT_ERRORS: ReadonlySet<number> = new Set([400, 401, 403, 404, 405, 409, 422]);

/** What a listing takes; copy-metrics and latest-copies take less (api-notes.md). */
const LIST_PARAMS = ['filter', 'orderby', 'page', 'pageSize', 'queryState'] as const;

/**
 * The query of a list request. With strict REST validation (the default) a
 * parameter the endpoint does not take is a 400, as the product answers it;
 * without it, such a parameter is ignored.
 */
function queryOf(req: Request, params: readonly string[], strict: boolean): ListQuery {
  const query: ListQuery = {};
  for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (!params.includes(name)) {
      if (strict) throw new HttpError(400, `Unknown query parameter ${name.slice(0, 40)}`, `This endpoint takes ${params.join(', ') || 'no parameters'}`);
      continue;
    }
    if (typeof value !== 'string') throw new HttpError(400, `query parameter ${name} must be given once`);
    query[name as keyof ListQuery] = value;
  }
  return query;
}
