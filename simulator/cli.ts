/**
 * `npm run simulator -- --seed 1 --assets 1000 --https`: starts the four
 * simulated servers and prints their URLs; Ctrl-C closes them.
 * `--speed N` lets the simulated clock run N times real time (0 freezes it),
 * so a demo sees new copies, activities and capacity growth.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_PASSWORD, startSimulator, type RunningSimulator } from './index';
import { DEFAULT_ESTATE_SIZE } from './types';
import type { EstateSize, SimulatorOptions } from './types';

/** CLI flag -> EstateSize knob */
const SIZE_FLAGS: Record<string, keyof EstateSize> = {
  assets: 'assets',
  'copies-per-asset': 'copiesPerAsset',
  'assets-without-copy-share': 'assetsWithoutCopyShare',
  'activities-per-day': 'activitiesPerDay',
  'audit-entries': 'auditEntries',
  'audit-entries-per-day': 'auditEntriesPerDay',
  'protection-policies': 'protectionPolicies',
  'replicated-vms': 'replicatedVms',
  'replication-clusters': 'replicationClusters',
  'storage-systems': 'storageSystems',
};

const PORT_FLAGS = {
  'management-port': 'management',
  'replication-port': 'replication',
  'storage-center-port': 'storageCenter',
  'storage-appliance-port': 'storageAppliance',
} as const;

export function usage(): string {
  const sizes = Object.entries(SIZE_FLAGS)
    .map(([flag, key]) => `  --${flag} <n>   (default ${DEFAULT_ESTATE_SIZE[key]})`)
    .join('\n');
  return `Usage: npm run simulator -- [options]
  --seed <n>                 estate seed (default 1)
  --https                    serve HTTPS with a generated self-signed certificate
  --ca-out <file>            write that certificate (PEM) to a file, for clients' CA setting
  --start-time <iso>         simulated start time (default: now)
  --speed <x>                simulated seconds per real second (default 1; 0 freezes the clock)
  --api-spelling <s>         storage and replication spelling: seed (default) or product (dd-systems, rp-clusters ...)
  --username <name> --password <secret> --token-ttl <seconds>
  --user-role-username <name> management account with the User role, same password (default monitor)
  --lenient-rest             management service accepts undocumented query parameters (default: 400)
  --management-type-names <seed|product>  asset type names (product: VMWARE_VIRTUAL_MACHINE; default seed)
  --help                     this text
${Object.keys(PORT_FLAGS)
  .map((f) => `  --${f} <port>`)
  .join('\n')}
${sizes}`;
}

function parseNumber(flag: string, raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0) throw new Error(`--${flag} needs a non-negative number, got "${raw}"`);
  return value;
}

export function parseCli(argv: string[]): { options: SimulatorOptions; speed: number; caOut?: string; help: boolean } {
  const stringFlags = ['seed', 'start-time', 'speed', 'api-spelling', 'username', 'password', 'token-ttl', 'user-role-username', 'management-type-names', 'ca-out', ...Object.keys(PORT_FLAGS), ...Object.keys(SIZE_FLAGS)];
  const { values } = parseArgs({
    args: argv,
    options: {
      ...Object.fromEntries(stringFlags.map((f) => [f, { type: 'string' as const }])),
      https: { type: 'boolean' },
      'lenient-rest': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  const str = (flag: string) => (values as Record<string, unknown>)[flag] as string | undefined;
  const options: SimulatorOptions = { https: Boolean(values.https) };
  if (str('seed') !== undefined) options.seed = parseNumber('seed', str('seed') as string);
  if (str('start-time') !== undefined) {
    const start = new Date(str('start-time') as string);
    if (Number.isNaN(start.getTime())) throw new Error(`--start-time needs an ISO date, got "${str('start-time')}"`);
    options.startTime = start;
  }
  if (str('username') !== undefined) options.username = str('username');
  if (str('password') !== undefined) options.password = str('password');
  if (str('token-ttl') !== undefined) options.tokenTtlSeconds = parseNumber('token-ttl', str('token-ttl') as string);
  const spelling = str('api-spelling');
  if (spelling !== undefined) {
    if (spelling !== 'seed' && spelling !== 'product') throw new Error(`--api-spelling needs seed or product, got "${spelling}"`);
    options.apiSpelling = spelling;
  }
  if (str('user-role-username') !== undefined) options.userRoleUsername = str('user-role-username');
  if (values['lenient-rest']) options.strictRestValidation = false;
  const typeNames = str('management-type-names');
  if (typeNames !== undefined) {
    if (typeNames !== 'seed' && typeNames !== 'product') throw new Error(`--management-type-names needs seed or product, got "${typeNames}"`);
    options.managementTypeNames = typeNames;
  }
  const size: Partial<EstateSize> = {};
  for (const [flag, key] of Object.entries(SIZE_FLAGS)) {
    const raw = str(flag);
    if (raw !== undefined) size[key] = parseNumber(flag, raw);
  }
  options.size = size;
  const ports: NonNullable<SimulatorOptions['ports']> = {};
  for (const [flag, key] of Object.entries(PORT_FLAGS)) {
    const raw = str(flag);
    if (raw !== undefined) ports[key] = parseNumber(flag, raw);
  }
  options.ports = ports;
  const speed = str('speed') === undefined ? 1 : parseNumber('speed', str('speed') as string);
  return { options, speed, caOut: str('ca-out'), help: Boolean(values.help) };
}

/**
 * What the simulator prints once started: each server's base URL exactly as
 * a target's `url:` takes it (the clients add /api/v2, /api/v1, /rest/v1.0).
 */
export function startupLines(sim: Pick<RunningSimulator, 'urls' | 'username' | 'password' | 'caCertPem' | 'clock'>, seed: number, speed: number, caOut?: string): string[] {
  return [
    `simulator started (seed ${seed}, clock ${sim.clock.now().toISOString()}, speed x${speed}); paste each URL into a target's url:`,
    `  kind: management   url: ${sim.urls.management}`,
    `  kind: replication  url: ${sim.urls.replication}`,
    `  kind: storage      url: ${sim.urls.storageCenter}   (a management center)`,
    `  kind: storage      url: ${sim.urls.storageAppliance}   (an appliance)`,
    // The password is only echoed when it is the documented default: never print a chosen secret.
    `  username ${sim.username}, password ${sim.password === DEFAULT_PASSWORD ? `${DEFAULT_PASSWORD} (default)` : '(as given)'}`,
    ...(sim.caCertPem ? [caOut ? `  CA certificate written to ${caOut}` : '  HTTPS with a self-signed certificate (use --ca-out <file> to trust it)'] : []),
    'Ctrl-C to stop',
  ];
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseCli>;
  try {
    parsed = parseCli(process.argv.slice(2));
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${usage()}`);
    process.exit(2);
  }
  if (parsed.help) {
    console.log(usage());
    return;
  }
  const sim = await startSimulator(parsed.options);
  if (parsed.caOut && sim.caCertPem) writeFileSync(parsed.caOut, sim.caCertPem);

  // The clock follows real time scaled by --speed, in whole-second steps.
  let lastTick = Date.now();
  const ticker =
    parsed.speed > 0
      ? setInterval(() => {
          const now = Date.now();
          sim.clock.advance((now - lastTick) * parsed.speed);
          lastTick = now;
        }, 1000)
      : undefined;

  for (const line of startupLines(sim, parsed.options.seed ?? 1, parsed.speed, parsed.caOut)) console.log(line);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (ticker) clearInterval(ticker);
    sim.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
