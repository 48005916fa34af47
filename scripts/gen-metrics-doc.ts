/** Regenerates docs/metrics.md and the collectors table of docs/configuration.md: `npm run docs:metrics`. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { metricsMarkdown, withCollectorsTable } from './metrics-doc';

const docs = join(__dirname, '..', 'docs');
writeFileSync(join(docs, 'metrics.md'), metricsMarkdown());
const configuration = join(docs, 'configuration.md');
writeFileSync(configuration, withCollectorsTable(readFileSync(configuration, 'utf8')));
process.stdout.write('docs/metrics.md and the collectors of docs/configuration.md written\n');
