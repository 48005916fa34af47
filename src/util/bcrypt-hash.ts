/** A configured value of this form is a bcrypt hash, as in Prometheus's web config. */
export function isBcryptHash(value: string): boolean {
  return /^\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}$/.test(value);
}

/** A hash's cost factor ($2y$10$... -> 10). */
export const bcryptCost = (hash: string): number => Number(hash.split('$')[2]);

/**
 * Why no bcrypt verifies this hash (undefined: one does): bcryptjs refuses a cost outside 4 to 31 and a revision other than a, b or y.
 * Never quoting the hash beyond its prefix.
 */
export function unverifiableBcryptHash(hash: string): string | undefined {
  const [, revision = '', cost = ''] = hash.split('$');
  if (!['2a', '2b', '2y'].includes(revision)) return `a bcrypt hash of revision $${revision}$ cannot be verified: use $2y$, $2b$ or $2a$`;
  const rounds = Number(cost);
  if (rounds < 4 || rounds > 31) return `a bcrypt hash of cost ${cost} cannot be verified: bcrypt costs are 4 to 31`;
  return undefined;
}
