/**
 * The documented command exists after `npm ci && npm run build`:
 * `npx dataprotect-exporter --version` runs the package's bin, which `npm run
 * build` leaves executable, and `npm pack` ships the bin and what it loads.
 * The build runs in a copy of the sources (the working tree's dist/ is left
 * alone), with this checkout's node_modules linked in place of `npm ci`.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

jest.setTimeout(180_000);

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dp-package-'));
  for (const entry of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'config']) {
    cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await run('npm', ['run', 'build'], { cwd: dir });
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm run build', () => {
  it('leaves dist/src/main.js executable, with a node shebang', () => {
    const main = join(dir, 'dist', 'src', 'main.js');
    expect(statSync(main).mode & 0o111).toBe(0o111);
    expect(readFileSync(main, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  it('makes `npx dataprotect-exporter --version` print the version', async () => {
    const { stdout } = await run('npx', ['--offline', 'dataprotect-exporter', '--version'], { cwd: dir });
    expect(stdout.trim()).toBe(VERSION);
  });

  it('runs through a symbolic link, as README installs it in /usr/local/bin', async () => {
    const link = join(dir, 'bin', 'dataprotect-exporter');
    mkdirSync(join(dir, 'bin'));
    symlinkSync(join(dir, 'dist', 'src', 'main.js'), link);
    const { stdout } = await run(link, ['--version'], { cwd: tmpdir() });
    expect(stdout.trim()).toBe(VERSION);
  });

  it('and `npm pack` ships the bin, the package.json it reads and the example configuration, no sources or tests', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--offline'], { cwd: dir });
    const [packed] = JSON.parse(stdout) as Array<{ files: Array<{ path: string; mode: number }> }>;
    const files = new Map(packed!.files.map((file) => [file.path, file.mode]));
    expect([...files.keys()]).toEqual(expect.arrayContaining(['dist/src/main.js', 'dist/src/cli.js', 'dist/package.json', 'config/example.yaml', 'package.json']));
    expect(files.get('dist/src/main.js')! & 0o111).toBe(0o111);
    expect([...files.keys()].filter((path) => /^(src|test|simulator)\/|\.ts$/.test(path) && !path.endsWith('.d.ts'))).toEqual([]);
  });
});
