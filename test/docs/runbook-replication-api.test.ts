/**
 * The plugin requests the runbook's replication sections give an operator to confirm an alert answer on the plugin the
 * operator has: the seed spelling's and the real plugin's (apiSpelling: product, `rp-clusters`, `rpClusterName`), which
 * answers 404 to the seed's paths and 400 to its field names. Each documented request, read in the seed's names, has a
 * form that the simulated plugin of each spelling answers with 200.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../simulator';

const RUNBOOK = readFileSync(join(__dirname, '..', '..', 'docs', 'runbook.md'), 'utf8');
const SECTIONS = ['### DataProtectReplicationVMPaused', '### DataProtectReplicationClusterDisconnected'];
const SIZE = { assets: 1, auditEntries: 1, activitiesPerDay: 1, auditEntriesPerDay: 1, replicatedVms: 16, replicationClusters: 3, storageSystems: 1 };

/** The text of a `###` section, to the next heading. */
function section(heading: string): string {
  const start = RUNBOOK.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const next = RUNBOOK.slice(start + heading.length).search(/\n#{1,3} /);
  return RUNBOOK.slice(start, next < 0 ? undefined : start + heading.length + next);
}

/** Every `GET /api/v1/...` the sections quote. */
const documented = SECTIONS.flatMap((heading) => [...section(heading).matchAll(/`GET (\/api\/v1\/[^`\s]+)`/g)].map((match) => match[1] as string));

/** A request in the seed's names: what it asks, whichever spelling it is written in. */
const inSeedNames = (request: string): string =>
  request.replace(/\/rp-clusters\/\{id\}/, '/rep-cluster/{id}').replace(/\/rp-clusters/, '/rep-clusters').replace(/rpCluster/g, 'repCluster');

describe.each(['seed', 'product'] as const)('the runbook replication requests on a %s-spelled plugin', (spelling) => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 3, size: SIZE, apiSpelling: spelling });
  });
  afterAll(() => sim.close());

  const status = async (request: string): Promise<number> => {
    const cluster = sim.estate.replication.clusters[0]!;
    const path = request.replace('{id}', encodeURIComponent(cluster.id)).replace('<cluster>', encodeURIComponent(cluster.name));
    const authorization = `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`;
    const response = await fetch(sim.urls.replication + path, { headers: { authorization, accept: 'application/json' } });
    await response.arrayBuffer();
    return response.status;
  };

  it('documents requests at all', () => {
    expect(documented.length).toBeGreaterThanOrEqual(3);
  });

  it('has, for every request documented, a form this plugin answers with 200', async () => {
    const answered = new Set<string>();
    for (const request of documented) if ((await status(request)) === 200) answered.add(inSeedNames(request));
    expect([...new Set(documented.map(inSeedNames))].filter((request) => !answered.has(request))).toEqual([]);
  });
});
