/**
 * `npm run demo`: the exporter against the embedded simulator of all three
 * APIs, on http://127.0.0.1:8497 (or --port N; --api-spelling product serves the
 * storage and replication APIs in the real products' spelling). The simulated estate follows
 * the real clock, so new copies, activities and audit entries keep arriving.
 */
import { parseArgs } from 'node:util';
import { parseConfig } from '../src/config/load';
import { KNOWN_COLLECTORS } from '../src/collectors/names';
import { startSimulator } from './index';
import { Exporter } from '../src/exporter';
import { createLogger } from '../src/util/logger';

async function demo(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8497' },
      assets: { type: 'string', default: '500' },
      'log-level': { type: 'string', default: 'info' },
      // the real products' spelling of the storage and replication APIs; the exporter finds it by itself (apiSpelling auto)
      'api-spelling': { type: 'string', default: 'seed' },
    },
  });
  const spelling = values['api-spelling'];
  if (spelling !== 'seed' && spelling !== 'product') throw new Error(`--api-spelling needs seed or product, got "${spelling}"`);
  const simulator = await startSimulator({ seed: 42, size: { assets: Number(values.assets) }, apiSpelling: spelling });
  const target = (name: string, kind: string, url: string, extra: Record<string, unknown> = {}) => ({
    name,
    kind,
    url,
    username: simulator.username,
    password: '${DEMO_PASSWORD}',
    ...extra,
  });
  const config = parseConfig(
    {
      web: { listenAddress: '127.0.0.1', port: Number(values.port) },
      logLevel: values['log-level'],
      collection: { rpoByPolicy: { Gold: '12h' } },
      targets: [
        target('demo-backup', 'management', simulator.urls.management),
        target('demo-replication', 'replication', simulator.urls.replication),
        target('demo-storage', 'storage', simulator.urls.storageCenter, { storageMode: 'center' }),
      ],
    },
    { env: { DEMO_PASSWORD: simulator.password }, knownCollectors: KNOWN_COLLECTORS },
  );
  const logger = createLogger(config.logLevel as 'info');
  const exporter = new Exporter(config, logger);
  await exporter.start();

  // Keep the simulated estate in step with real time.
  let last = Date.now();
  const ticker = setInterval(() => {
    const now = Date.now();
    simulator.clock.advance(now - last);
    last = now;
  }, 1000);

  // `npm run demo` execs this very process (no shell, no tsx wrapper between): a signal to npm's PID
  // reaches it, and the exporter and simulator stop with it. A second signal exits at once.
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) process.exit(1);
    stopping = true;
    clearInterval(ticker);
    await exporter.stop();
    await simulator.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());

  // Printed once the handlers are in place: whoever reads the banner may signal at once.
  const address = exporter.address();
  process.stdout.write(`
dataprotect-exporter demo
  exporter:     ${address}/  (metrics at ${address}/metrics)
  simulator:    management ${simulator.urls.management}, replication ${simulator.urls.replication},
                storage center ${simulator.urls.storageCenter}
  Ctrl-C stops.
`);
}

demo().catch((error: Error) => {
  process.stderr.write(`demo failed: ${error.message}\n`);
  process.exit(1);
});
