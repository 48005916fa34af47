/** A configured value of this form is a bcrypt hash, as in Prometheus's web config. */
export function isBcryptHash(value: string): boolean {
  return /^\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}$/.test(value);
}

/** A hash's cost factor ($2y$10$... -> 10). */
export const bcryptCost = (hash: string): number => Number(hash.split('$')[2]);
