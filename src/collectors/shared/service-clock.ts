/**
 * How far a time a service reports may be ahead of the exporter's clock and still be taken: the two clocks differ a little.
 * Further ahead it is no instant that has happened (a service clock that jumped, milliseconds for seconds, a corrupt record).
 */
export const SERVICE_TIME_AHEAD_MS = 10 * 60_000;
