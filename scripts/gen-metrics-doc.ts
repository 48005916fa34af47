/** Regenerates docs/metrics.md from the metric catalog: `npm run docs:metrics`. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { metricsMarkdown } from '../src/metrics/docs';

writeFileSync(join(__dirname, '..', 'docs', 'metrics.md'), metricsMarkdown());
process.stdout.write('docs/metrics.md written\n');
