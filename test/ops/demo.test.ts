/**
 * `npm run demo` as README starts it, stopped the way a supervisor or a
 * script stops it: SIGTERM to npm's PID. The exporter and the three simulated
 * APIs it printed must be gone with it (their ports refuse connections), not
 * left running behind an exited npm.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';

jest.setTimeout(60_000);

const ROOT = join(__dirname, '..', '..');
let demo: ChildProcess | undefined;

afterAll(() => {
  // Only if the test failed half-way: the demo was started in a process group of its own.
  if (demo?.pid !== undefined && demo.exitCode === null) process.kill(-demo.pid, 'SIGKILL');
});

/** Resolves true when something accepts a connection on the URL's port, false when refused. */
function listening(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

it('stops the exporter and the simulator when npm run demo gets SIGTERM', async () => {
  demo = spawn('npm', ['run', 'demo', '--', '--port', '0', '--assets', '20', '--log-level', 'warn'], {
    cwd: ROOT,
    detached: true, // a process group of its own, for the clean-up above only
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => demo!.once('exit', (code) => resolve(code)));
  let output = '';
  const banner = await new Promise<string>((resolve, reject) => {
    demo!.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Ctrl-C stops.')) resolve(output);
    });
    demo!.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    void exited.then(() => reject(new Error(`the demo exited before it served:\n${output}`)));
  });
  const urls = [...banner.matchAll(/http:\/\/127\.0\.0\.1:\d+/g)].map((match) => match[0]);
  expect(new Set(urls).size).toBe(4); // the exporter, management, replication, storage center
  for (const url of urls) expect(await listening(url)).toBe(true);

  process.kill(demo.pid!, 'SIGTERM'); // npm's PID, not the group
  expect(await exited).toBe(0);
  for (const url of urls) expect(await listening(url)).toBe(false);
});
