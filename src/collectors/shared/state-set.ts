/** A state set (OpenMetrics): 1 for the current state, 0 for the other known ones; an unknown current state gets a series, not hidden. */
export function stateSet(known: readonly string[], current: string): Array<[state: string, value: number]> {
  const states = known.includes(current) ? known : [...known, current];
  return states.map((state) => [state, state === current ? 1 : 0]);
}
