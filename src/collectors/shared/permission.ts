/** A failure the collector has already logged in full: the scheduler keeps its own line to debug. */
export class PermissionDenied extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermissionDenied';
  }
}
