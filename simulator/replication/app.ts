import express from 'express';
import type { Express, NextFunction, Request, Response } from 'express';
import http from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { SimContext } from '../core/context';
import type { ApiSpelling } from '../types';
import type { ReplicationEstate } from './model';
import { UnknownFieldError, applyListQuery, type ListRules } from './query';

type Row = Readonly<Record<string, unknown>>;

/**
 * The real plugin's names for the seed's VM and group fields. Written out here,
 * not imported from the client: the simulator is the truth the client's own
 * table is tested against.
 */
const PRODUCT_FIELD_NAMES: Readonly<Record<string, string>> = {
  repSystemId: 'rpSystemId',
  repClusterId: 'rpClusterId',
  repClusterName: 'rpClusterName',
  hvClusterId: 'esxClusterId',
  hvClusterName: 'esxClusterName',
  hvMgrId: 'vcId',
  hvMgrName: 'vcName',
};

/**
 * The fields of each record in the seed's names (its tables, api-notes' group fields, and the simulator's extra ones): what the
 * plugin knows whatever its lists hold, so an empty list refuses an unknown name as a full one does. The seed's cluster fields
 * "omitted for a cluster that is not registered" and the VM's "present on production VMs" are among them.
 */
const CLUSTER_MODEL = ['id', 'name', 'repSystemId', 'version', 'isRegistered', 'address', 'connectionStatus', 'maintenanceMode'];
const GROUP_MODEL = ['id', 'name', 'bandwidthPriority', 'status', 'enabled', 'repClusterId', 'rpo'];
const VM_MODEL = [
  'id', 'name', 'copyId', 'groupId', 'groupName', 'hvClusterId', 'hvClusterName', 'hvMgrId', 'hvMgrName', 'repClusterId', 'repClusterName',
  'guestOsType', 'role', 'status', 'localMacAddressReplication', 'protectFutureNewVmdks', 'replicateVmHardware',
  'replicaVmdkDiskProvisioningType', 'vmFolderInInventory', 'vmReplicationId', 'vmToolsVersion', 'vmdks',
];

/** The real plugin's bandwidthPriority is a number where the seed shows a name. */
const PRODUCT_BANDWIDTH_PRIORITY: Readonly<Record<string, number>> = { HIGH: 1, NORMAL: 2, LOW: 3 };

function productRow(row: object): Row {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(row)) {
    out[PRODUCT_FIELD_NAMES[field] ?? field] = field === 'bandwidthPriority' ? (PRODUCT_BANDWIDTH_PRIORITY[String(value)] ?? value) : value;
  }
  return out;
}

/**
 * The plugin's error body. The seed does not show one; this shape is what the
 * simulator answers for every error (clients should rely on the status only).
 */
export function replicationErrorBody(status: number, req: Request, message?: string): unknown {
  return { status, error: http.STATUS_CODES[status] ?? 'Error', message: message ?? messageFor(status), path: req.originalUrl.split('?')[0] };
}

function messageFor(status: number): string {
  switch (status) {
    case 401:
      return 'Invalid authentication details';
    case 400:
      return 'Bad request';
    case 404:
      return 'Resource not found';
    case 429:
      return 'Request rejected because of server load';
    default:
      return http.STATUS_CODES[status] ?? 'Error';
  }
}

/**
 * The VM replication plugin (/api/v1): HTTP Basic on every request, bare JSON
 * arrays, filters / sort / fields on lists. Its 429 under load is applied in
 * front of this app by the core server (faults.replicationMaxConcurrent).
 *
 * In the product spelling clusters are `/rp-clusters` and `/rp-clusters/{id}`,
 * VM, group and cluster fields carry the real plugin's names (PRODUCT_FIELD_NAMES),
 * a group's bandwidthPriority is a number; the
 * seed's paths are 404 there. On both spellings a `fields=` name the records
 * do not have is answered 400, as the real plugin does, and so are a filter or
 * sort by such a name and, on groups, any filter but name and sort but name and
 * bandwidthPriority (the seed's "filterable by name and sortable by name and
 * bandwidthPriority").
 */
export function createReplicationApp(estate: ReplicationEstate, ctx: SimContext, spelling: ApiSpelling = 'seed'): Express {
  const product = spelling === 'product';
  const spelled = (rows: readonly object[]): Row[] => (product ? rows.map(productRow) : (rows as Row[]));
  const model = (fields: readonly string[]): string[] => (product ? fields.map((field) => PRODUCT_FIELD_NAMES[field] ?? field) : [...fields]);
  /** The seed: a consistency group is "filterable by name and sortable by name and bandwidthPriority". */
  const groupRules: ListRules = { model: model(GROUP_MODEL), filterable: new Set(['name']), sortable: new Set(['name', 'bandwidthPriority']) };
  const clusterRules: ListRules = { model: model(CLUSTER_MODEL) };
  const vmRules: ListRules = { model: model(VM_MODEL) };
  const list = (rows: readonly object[], req: Request, res: Response, rules?: ListRules) => {
    try {
      res.json(applyListQuery(spelled(rows), req.query, rules));
    } catch (error) {
      if (!(error instanceof UnknownFieldError)) throw error;
      res.status(400).json({ ...(replicationErrorBody(400, req) as object), message: error.message });
    }
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const fail = (req: Request, res: Response, status: number) => res.status(status).json(replicationErrorBody(status, req));

  app.use((req: Request, res: Response, next: NextFunction) => {
    if (basicAuthMatches(req.headers.authorization, ctx.username, ctx.password)) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="replication-plugin"');
    fail(req, res, 401);
  });

  app.get(product ? '/api/v1/rp-clusters' : '/api/v1/rep-clusters', (req, res) => list(estate.clusters, req, res, clusterRules));
  app.get(product ? '/api/v1/rp-clusters/:id' : '/api/v1/rep-cluster/:id', (req, res) => {
    const cluster = estate.clusters.find((c) => c.id === req.params.id);
    if (!cluster) return fail(req, res, 404);
    res.json(product ? productRow(cluster) : cluster);
  });
  app.get('/api/v1/groups', (req, res) => list(estate.groups, req, res, groupRules));
  app.get('/api/v1/vms', (req, res) => list(estate.vms, req, res, vmRules));

  app.use((req: Request, res: Response) => fail(req, res, 404));
  return app;
}

function basicAuthMatches(header: string | undefined, username: string, password: string): boolean {
  if (!header || !/^basic /i.test(header)) return false;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  return safeEqual(decoded.slice(0, colon), username) && safeEqual(decoded.slice(colon + 1), password);
}

function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
