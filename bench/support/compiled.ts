/**
 * The exporter's child runs compiled JavaScript, as the image does (`node dist/src/main.js`): under tsx both of its threads
 * would hold the transpiler, its caches and the source maps, about 30 MB of RSS and a tenth of a cold round's CPU that no
 * user's process spends (10k short probe: 292-293 MB compiled against 319-330 MB under tsx). The simulator stays under tsx:
 * its memory and CPU are not counted as the exporter's.
 */
import { execFileSync } from 'node:child_process';

export const COMPILED_EXPORTER_CHILD = '.tmp/bench-build/bench/support/exporter-child.js';

/** Compiles src/ and the exporter child's modules (tsconfig.bench.json), a few seconds: the bench never runs stale code. */
export function compileExporterChild(): void {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.bench.json'], { stdio: 'inherit' });
}
