/**
 * The bench's memory cgroups (--memory-limit): which files of a cgroup v1 or v2 hierarchy set the
 * limit and keep swap out, what an interrupted run left behind, and a child forked into a cgroup
 * before node starts. The hierarchies here are plain directories laid out as the kernel's; the
 * fork is real.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { createMemoryCgroup, inCgroup, removeLeftoverCgroups } from '../../bench/support/memory-cgroup';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'bench-cgroup-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const read = (...parts: string[]) => readFileSync(path.join(...parts), 'utf8');

/** A v1 memory hierarchy (the kernel adds a new cgroup's files itself: a test writes those it needs). */
function v1Hierarchy(): string {
  const base = path.join(root, 'memory');
  mkdirSync(base);
  writeFileSync(path.join(base, 'memory.limit_in_bytes'), '9223372036854771712');
  return base;
}

describe('bench memory cgroup', () => {
  it("sets cgroup v1's limit, the same limit with swap where swap is accounted, and reads its peak", () => {
    const base = v1Hierarchy();
    mkdirSync(path.join(base, 'bench-1'));
    writeFileSync(path.join(base, 'bench-1', 'memory.memsw.limit_in_bytes'), 'max');
    writeFileSync(path.join(base, 'bench-1', 'memory.swappiness'), '60');
    const cgroup = createMemoryCgroup('bench-1', 512 * 1024 ** 2, root);
    expect(cgroup.dir).toBe(path.join(base, 'bench-1'));
    expect(read(cgroup.dir, 'memory.limit_in_bytes')).toBe(String(512 * 1024 ** 2));
    expect(read(cgroup.dir, 'memory.memsw.limit_in_bytes')).toBe(String(512 * 1024 ** 2));
    expect(read(cgroup.dir, 'memory.swappiness')).toBe('0');
    expect(cgroup.peakBytes()).toBeUndefined();
    writeFileSync(path.join(cgroup.dir, 'memory.max_usage_in_bytes'), '300000000\n');
    expect(cgroup.peakBytes()).toBe(300_000_000);
  });

  it('sets no swap file that the kernel does not offer, and removes the cgroup', () => {
    v1Hierarchy();
    const cgroup = createMemoryCgroup('bench-2', 1024 ** 3, root);
    expect(existsSync(path.join(cgroup.dir, 'memory.memsw.limit_in_bytes'))).toBe(false);
    rmSync(path.join(cgroup.dir, 'memory.limit_in_bytes'));
    cgroup.remove();
    expect(existsSync(cgroup.dir)).toBe(false);
  });

  it("delegates cgroup v2's memory controller where it is not yet, then sets the limit and no swap", () => {
    writeFileSync(path.join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
    writeFileSync(path.join(root, 'cgroup.subtree_control'), 'cpu\n');
    mkdirSync(path.join(root, 'bench-3'));
    writeFileSync(path.join(root, 'bench-3', 'memory.swap.max'), 'max');
    const cgroup = createMemoryCgroup('bench-3', 1024 ** 3, root);
    expect(read(root, 'cgroup.subtree_control')).toBe('+memory');
    expect(read(cgroup.dir, 'memory.max')).toBe(String(1024 ** 3));
    expect(read(cgroup.dir, 'memory.swap.max')).toBe('0');
    writeFileSync(path.join(cgroup.dir, 'memory.peak'), '123\n');
    expect(cgroup.peakBytes()).toBe(123);
  });

  it('says what is missing where there is no memory controller, and leaves nothing behind where setting up fails', () => {
    writeFileSync(path.join(root, 'cgroup.controllers'), 'cpu pids\n');
    expect(() => createMemoryCgroup('bench-4', 1024 ** 3, root)).toThrow(/needs a cgroup memory controller under/);
    writeFileSync(path.join(root, 'cgroup.controllers'), 'memory\n');
    mkdirSync(path.join(root, 'cgroup.subtree_control')); // a file the kernel would refuse to write
    expect(() => createMemoryCgroup('bench-5', 1024 ** 3, root)).toThrow(/cannot set up the cgroup .*bench-5.*run the bench as root/);
    expect(existsSync(path.join(root, 'bench-5'))).toBe(false);
  });

  it('removes the cgroups of bench processes that no longer run, and only those', () => {
    const base = v1Hierarchy();
    for (const name of ['dataprotect-bench-100-1', 'dataprotect-bench-200-1', 'other-100-1']) mkdirSync(path.join(base, name));
    removeLeftoverCgroups('dataprotect-bench-', root, (pid) => pid === 200);
    expect(['dataprotect-bench-100-1', 'dataprotect-bench-200-1', 'other-100-1'].map((name) => existsSync(path.join(base, name)))).toEqual([false, true, true]);
  });

  it('forks node, as the same process, with its flags after writing its pid to the cgroup', async () => {
    const dir = path.join(root, 'group');
    mkdirSync(dir);
    const script = path.join(root, 'child.js');
    writeFileSync(script, 'process.send({ pid: process.pid, execArgv: process.execArgv, args: process.argv.slice(2) });\n');
    const child = fork(script, ['an argument'], { ...inCgroup(dir, ['--no-warnings']), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const seen = await Promise.race([new Promise((resolve) => child.once('message', resolve)), exited.then(() => 'exited without a message')]);
    await exited;
    expect(seen).toEqual({ pid: child.pid, execArgv: ['--no-warnings'], args: ['an argument'] });
    expect(read(dir, 'cgroup.procs').trim()).toBe(String(child.pid));
  });
});
