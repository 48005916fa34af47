/**
 * How much of a piece of work each turn of the event loop did: at every
 * turn until `stop()`, how far `progress()` (a count of calls, say) moved
 * since the turn before. Work done in one synchronous go shows as one large
 * entry; work that hands the loop over shows as many small ones.
 */
export function workPerTurn(progress: () => number): { stop(): number[] } {
  const perTurn: number[] = [];
  let stopped = false;
  let before = progress();
  const turn = (): void => {
    if (stopped) return;
    const now = progress();
    perTurn.push(now - before);
    before = now;
    setImmediate(turn);
  };
  setImmediate(turn);
  return {
    stop() {
      stopped = true;
      perTurn.push(progress() - before);
      return perTurn;
    },
  };
}
