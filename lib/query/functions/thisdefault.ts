// Functions whose one-argument form applies to `this` (`is(<t>)`, and the
// shaping functions: `shape(<t>)` shapes `this`): a call of one of them
// with one argument reads the whole value, though it names no field.

export const THIS_BY_DEFAULT: ReadonlySet<string> = new Set([
  "is",
  "cast",
  "crop",
  "fill",
  "fit",
  "order",
  "shape",
]);

/** Whether a call of name with argc arguments reads `this`. */
export function readsThisByDefault(name: string, argc: number): boolean {
  return argc === 1 && THIS_BY_DEFAULT.has(name);
}
