/**
 * The bench's memory cgroups (--memory-limit): which files of a cgroup v1 or v2 hierarchy set the
 * limit, and a child forked into a cgroup before node starts. The hierarchies here are plain
 * directories laid out as the kernel's; the fork is real.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { createMemoryCgroup, inCgroup } from '../../bench/support/memory-cgroup';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'bench-cgroup-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('bench memory cgroup', () => {
  it("sets cgroup v1's limit in the memory hierarchy and reads its peak", () => {
    mkdirSync(path.join(root, 'memory'));
    writeFileSync(path.join(root, 'memory', 'memory.limit_in_bytes'), '9223372036854771712');
    const cgroup = createMemoryCgroup('bench-1', 512 * 1024 ** 2, root);
    expect(cgroup.dir).toBe(path.join(root, 'memory', 'bench-1'));
    expect(readFileSync(path.join(cgroup.dir, 'memory.limit_in_bytes'), 'utf8')).toBe(String(512 * 1024 ** 2));
    expect(cgroup.peakBytes()).toBeUndefined();
    writeFileSync(path.join(cgroup.dir, 'memory.max_usage_in_bytes'), '300000000\n');
    expect(cgroup.peakBytes()).toBe(300_000_000);
  });

  it("sets cgroup v2's limit and no swap where the memory controller is available", () => {
    writeFileSync(path.join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
    mkdirSync(path.join(root, 'bench-2'));
    writeFileSync(path.join(root, 'bench-2', 'memory.swap.max'), 'max');
    const cgroup = createMemoryCgroup('bench-2', 1024 ** 3, root);
    expect(readFileSync(path.join(cgroup.dir, 'memory.max'), 'utf8')).toBe(String(1024 ** 3));
    expect(readFileSync(path.join(cgroup.dir, 'memory.swap.max'), 'utf8')).toBe('0');
    writeFileSync(path.join(cgroup.dir, 'memory.peak'), '123\n');
    expect(cgroup.peakBytes()).toBe(123);
    rmSync(path.join(cgroup.dir, 'memory.max'));
    rmSync(path.join(cgroup.dir, 'memory.swap.max'));
    rmSync(path.join(cgroup.dir, 'memory.peak'));
    cgroup.remove();
    expect(existsSync(cgroup.dir)).toBe(false);
  });

  it('says what is missing where there is no memory controller', () => {
    writeFileSync(path.join(root, 'cgroup.controllers'), 'cpu pids\n');
    expect(() => createMemoryCgroup('bench-3', 1024 ** 3, root)).toThrow(/needs a cgroup memory controller under/);
  });

  it('forks node with its flags after writing its own pid to the cgroup', async () => {
    const dir = path.join(root, 'group');
    mkdirSync(dir);
    const script = path.join(root, 'child.js');
    writeFileSync(script, 'process.send({ execArgv: process.execArgv, args: process.argv.slice(2) });\n');
    const child = fork(script, ['an argument'], { ...inCgroup(dir, ['--no-warnings']), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const seen = await new Promise((resolve) => child.once('message', resolve));
    await new Promise((resolve) => child.once('exit', resolve));
    expect(seen).toEqual({ execArgv: ['--no-warnings'], args: ['an argument'] });
    expect(readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').trim()).toBe(String(child.pid));
  });
});
