/**
 * A memory cgroup for an exporter child (`--memory-limit`), so that the bench measures it as a
 * container of that limit runs it: node reads the limit at start (libuv's constrained memory) and
 * V8 sizes the heaps it is not told about from it, where outside a cgroup it sizes them from the
 * whole machine; and a child that outgrows the limit is killed, as the container would be.
 * Needs a writable memory controller: cgroup v1's `memory` hierarchy or cgroup v2's, as root has.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = '/sys/fs/cgroup';

export interface MemoryCgroup {
  /** the cgroup's directory: a process joins it by writing its pid to `cgroup.procs` there */
  readonly dir: string;
  readonly limitBytes: number;
  /** the most memory its processes used at once, in bytes, as the kernel counts it against the limit */
  peakBytes(): number | undefined;
  /** removes the cgroup; its processes must have ended */
  remove(): void;
}

interface Hierarchy {
  version: 1 | 2;
  /** where the cgroups of the memory controller are made */
  base: string;
}

function hierarchy(root: string): Hierarchy {
  if (existsSync(path.join(root, 'memory', 'memory.limit_in_bytes'))) return { version: 1, base: path.join(root, 'memory') };
  if (readWords(path.join(root, 'cgroup.controllers')).includes('memory')) return { version: 2, base: root };
  throw new Error(`--memory-limit needs a cgroup memory controller under ${root} (v1's memory hierarchy or v2's)`);
}

function readWords(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split(/\s+/).filter(Boolean) : [];
}

/** Writes `value` to the cgroup file where the kernel offers it (memsw and swap files exist only with swap accounting). */
function writeIfPresent(dir: string, file: string, value: string): void {
  if (existsSync(path.join(dir, file))) writeFileSync(path.join(dir, file), value);
}

/**
 * Sets the limit, and no swap: with swap a child over the limit would slow down instead of being killed.
 * v2 gives a child cgroup memory files only where its parent delegates the controller to it.
 */
function limit(version: 1 | 2, dir: string, limitBytes: number): void {
  if (version === 1) {
    writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(limitBytes));
    writeIfPresent(dir, 'memory.memsw.limit_in_bytes', String(limitBytes));
    writeIfPresent(dir, 'memory.swappiness', '0');
    return;
  }
  writeFileSync(path.join(dir, 'memory.max'), String(limitBytes));
  writeIfPresent(dir, 'memory.swap.max', '0');
}

/** Creates the cgroup `name` with a memory limit of `limitBytes`; throws a message that says why it cannot. */
export function createMemoryCgroup(name: string, limitBytes: number, root = ROOT): MemoryCgroup {
  const { version, base } = hierarchy(root);
  const dir = path.join(base, name);
  try {
    if (version === 2 && !readWords(path.join(base, 'cgroup.subtree_control')).includes('memory')) {
      writeFileSync(path.join(base, 'cgroup.subtree_control'), '+memory');
    }
    mkdirSync(dir, { recursive: true });
    limit(version, dir, limitBytes);
  } catch (error) {
    rmdirQuietly(dir);
    const busy = (error as NodeJS.ErrnoException).code === 'EBUSY' ? ` (${base} holds processes: v2 delegates a controller only from a cgroup without any)` : '';
    throw new Error(`--memory-limit: cannot set up the cgroup ${dir}: ${(error as Error).message}${busy}; run the bench as root, or without --memory-limit`, {
      cause: error,
    });
  }
  return {
    dir,
    limitBytes,
    peakBytes() {
      const file = path.join(dir, version === 1 ? 'memory.max_usage_in_bytes' : 'memory.peak');
      return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
    },
    remove() {
      rmdirSync(dir);
    },
  };
}

/** Removes a cgroup's directory if it can: one still holding a process stays (removeLeftoverCgroups takes it later). */
export function rmdirQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not made, or still holding a process: nothing more to undo here
  }
}

/**
 * Removes the empty cgroups `<prefix><pid>-<n>` that a bench process no longer running left behind (one that was
 * interrupted or killed before it could remove them).
 */
export function removeLeftoverCgroups(prefix: string, root = ROOT, isRunning = processIsRunning): void {
  let base: string;
  try {
    base = hierarchy(root).base;
  } catch {
    return;
  }
  for (const name of readdirSync(base)) {
    const pid = name.startsWith(prefix) ? Number.parseInt(name.slice(prefix.length), 10) : NaN;
    if (Number.isInteger(pid) && !isRunning(pid)) rmdirQuietly(path.join(base, name));
  }
}

function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Fork settings that start a node child inside `cgroupDir` before node itself starts: a shell
 * writes its own pid to the cgroup, then becomes node. `fork` runs `execPath execArgv... module args...`.
 */
export function inCgroup(cgroupDir: string, nodeArgs: string[]): { execPath: string; execArgv: string[] } {
  return { execPath: '/bin/sh', execArgv: ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroupDir, process.execPath, ...nodeArgs] };
}
