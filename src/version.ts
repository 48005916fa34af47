/** The exporter's version, read from package.json (works from src/ with tsx and from dist/src/ once built). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const VERSION: string = (require('../package.json') as { version: string }).version;
