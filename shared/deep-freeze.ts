/** Freezing a value all the way down, for values kept in memory and shared by many readers. */

/**
 * `value`, frozen with everything it holds: a kept value that every reader shares (a turn's
 * composed prompt, the offered tools) can then not be changed in place by one of them, and a
 * consumer may cache what it derives from a frozen value (its JSON, its token estimate) by identity.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
