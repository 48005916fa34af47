/**
 * A state set (OpenMetrics): one series per known state, 1 for the current one and 0 for the others, plus one for a current state
 * the exporter does not know, so that a new value of the API is shown rather than hidden.
 */
export function stateSet(known: readonly string[], current: string): Array<[state: string, value: number]> {
  const states = known.includes(current) ? known : [...known, current];
  return states.map((state) => [state, state === current ? 1 : 0]);
}
