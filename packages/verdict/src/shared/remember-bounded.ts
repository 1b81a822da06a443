/**
 * Sets `key` to `value` as the newest entry of `map`, then forgets the oldest entry once `map` holds more
 * than `capacity`: a bounded, insertion-ordered memory.
 */
export function rememberBounded<V>(map: Map<string, V>, key: string, value: V, capacity: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > capacity) map.delete(map.keys().next().value as string);
}
