/**
 * A memory cgroup for an exporter child (`--memory-limit`), so that the bench measures it as a
 * container of that limit runs it: node reads the limit at start (libuv's constrained memory) and
 * V8 sizes the heaps it is not told about from it, where outside a cgroup it sizes them from the
 * whole machine; and a child that outgrows the limit is killed, as the container would be.
 * Needs a writable memory controller: cgroup v1's `memory` hierarchy or cgroup v2's, as root has.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
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

/** Which files of a hierarchy set the limit and report the peak. */
interface Layout {
  base: string;
  limitFile: string;
  peakFile: string;
  /** swap would let a child past the limit slowly instead of being killed */
  noSwapFile?: string;
}

function layout(root: string): Layout {
  if (existsSync(path.join(root, 'memory', 'memory.limit_in_bytes'))) {
    return { base: path.join(root, 'memory'), limitFile: 'memory.limit_in_bytes', peakFile: 'memory.max_usage_in_bytes' };
  }
  const controllers = path.join(root, 'cgroup.controllers');
  if (existsSync(controllers) && readFileSync(controllers, 'utf8').split(/\s+/).includes('memory')) {
    return { base: root, limitFile: 'memory.max', peakFile: 'memory.peak', noSwapFile: 'memory.swap.max' };
  }
  throw new Error(`--memory-limit needs a cgroup memory controller under ${root} (v1's memory hierarchy or v2's)`);
}

/** Creates the cgroup `name` with a memory limit of `limitBytes`; throws a message that says why it cannot. */
export function createMemoryCgroup(name: string, limitBytes: number, root = ROOT): MemoryCgroup {
  const { base, limitFile, peakFile, noSwapFile } = layout(root);
  const dir = path.join(base, name);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, limitFile), String(limitBytes));
    if (noSwapFile && existsSync(path.join(dir, noSwapFile))) writeFileSync(path.join(dir, noSwapFile), '0');
  } catch (error) {
    throw new Error(`--memory-limit: cannot set up the cgroup ${dir} (${(error as Error).message}); run the bench as root, or without --memory-limit`, {
      cause: error,
    });
  }
  return {
    dir,
    limitBytes,
    peakBytes() {
      const file = path.join(dir, peakFile);
      return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
    },
    remove() {
      rmdirSync(dir);
    },
  };
}

/**
 * Fork settings that start a node child inside `cgroupDir` before node itself starts: a shell
 * writes its own pid to the cgroup, then becomes node. `fork` runs `execPath execArgv... module args...`.
 */
export function inCgroup(cgroupDir: string, nodeArgs: string[]): { execPath: string; execArgv: string[] } {
  return { execPath: '/bin/sh', execArgv: ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroupDir, process.execPath, ...nodeArgs] };
}
