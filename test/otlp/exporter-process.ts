/**
 * Runs an Exporter in a child process for test/otlp/estate-events.test.ts,
 * driven over IPC on the parent's simulated clock. A child because the OTLP
 * exporters load node:http with a dynamic import(), which jest's module
 * sandbox refuses; here the real exporters send real requests.
 *
 * Messages: {id, type: 'start', config, now} | {id, type: 'round', now} |
 * {id, type: 'reload', config, now} | {id, type: 'flush'} | {id, type: 'stop'};
 * each answered with {id, ...}.
 */
import pino from 'pino';
import { COLLECTORS } from '../../src/collectors/registry';
import { parseConfig } from '../../src/config/load';
import { Exporter } from '../../src/exporter';
import type { ExporterRuntime } from '../../src/runtime';

type Message =
  | { id: number; type: 'start' | 'reload'; config: unknown; now: number }
  | { id: number; type: 'round'; now: number }
  | { id: number; type: 'flush' | 'stop' };

let clock = 0;
let exporter: Exporter | undefined;

async function handle(message: Message): Promise<Record<string, unknown>> {
  switch (message.type) {
    case 'start': {
      clock = message.now;
      exporter = new Exporter(parseConfig(message.config), pino({ level: 'silent' }), {
        processMetrics: false,
        now: () => new Date(clock),
        collectorsFor: (kind) => COLLECTORS[kind].filter((definition) => definition.name === 'activities' || definition.name === 'audit-logs'),
      });
      await exporter.start();
      while (!exporter.runtime.firstRoundComplete()) await new Promise((resolve) => setTimeout(resolve, 20));
      return { address: exporter.address(), ok: exporter.runtime.store.all().map((record) => record.lastSuccessAt !== undefined) };
    }
    case 'reload':
      clock = message.now;
      await exporter?.applyConfig(parseConfig(message.config));
      // a target added or restarted runs its first round at once
      while (!exporter?.runtime.firstRoundComplete()) await new Promise((resolve) => setTimeout(resolve, 20));
      return {};
    case 'round':
      clock = message.now;
      return { results: await exporter?.runtime.runOnce() };
    case 'flush': {
      // Collected in this thread (its clock is given): the forwarder is the runtime's.
      const events = (exporter?.runtime as ExporterRuntime | undefined)?.events;
      await events?.flush();
      return { pendingTasks: events?.pendingTasks ?? 0 };
    }
    case 'stop':
      await exporter?.stop();
      return {};
  }
}

process.on('message', (message: Message) => {
  handle(message).then(
    (reply) => process.send?.({ id: message.id, ...reply }),
    (error: Error) => process.send?.({ id: message.id, error: error.message }),
  );
});
process.on('disconnect', () => process.exit(0));
