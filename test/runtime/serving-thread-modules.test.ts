import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');

/**
 * The serving thread holds only what serves: its heap (and so the pause of
 * each of its collections, which a scrape waits for) must not grow with the
 * clients, collectors and OTLP code that run in the collection thread.
 */
describe('the serving thread', () => {
  it('loads no client, collector, scheduler job or OTLP module with the CLI', async () => {
    const script = `require('./src/cli'); console.log(JSON.stringify(Object.keys(require.cache)))`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: ROOT });
    const loaded = (JSON.parse(stdout) as string[]).filter((file) => file.startsWith(join(ROOT, 'src')));
    expect(loaded.map((file) => file.slice(ROOT.length + 1))).toEqual(expect.arrayContaining(['src/exporter.ts', 'src/collection/host.ts']));
    const collectionSide = loaded.filter((file) => /\/src\/(clients|otlp)\/|\/src\/collectors\/(?!names\.ts)|\/src\/scheduler\/job|\/src\/runtime\.ts/.test(file));
    expect(collectionSide).toEqual([]);
  });
});
