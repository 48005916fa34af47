/**
 * The container image: a supported Node LTS line, a production build without
 * the simulator and the demo (they need dev dependencies), and no VOLUME
 * (anonymous volumes left behind the documented single-file mount).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
/** Instructions, comments dropped and continuation lines joined. */
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

describe('Dockerfile', () => {
  it('builds and runs on Node 22 LTS in every stage', () => {
    const bases = instructions.filter((line) => /^FROM\s/i.test(line)).map((line) => line.split(/\s+/)[1]);
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toMatch(/^node:22(-|$)/);
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines).toMatch(/>=22/);
  });

  it('declares no VOLUME', () => {
    expect(instructions.filter((line) => /^VOLUME\s/i.test(line))).toEqual([]);
  });

  it('leaves the simulator and the demo out of the build context and the production build', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((line) => line.trim());
    expect(ignored).toContain('simulator');
    const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
    const files = execFileSync(tsc, ['-p', 'tsconfig.build.json', '--listFilesOnly'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((file) => file && !file.includes('node_modules'))
      .map((file) => relative(ROOT, file));
    expect(files).toContain('src/main.ts');
    // only the product: nothing from simulator/ (the simulator and the demo), test/ or bench/
    expect(files.filter((file) => !file.startsWith('src/') && file !== 'package.json')).toEqual([]);
    expect(instructions.filter((line) => /^COPY\s.*simulator/i.test(line))).toEqual([]);
  });
});
