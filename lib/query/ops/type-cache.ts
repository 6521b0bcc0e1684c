// A cache keyed by a vector of types (compared by identity, since types are
// interned): the output record type of `cut` per vector of field types, the
// plan of `put` per vector of clause types. The last hit is checked first,
// as streams mostly repeat one shape.

import type { Type } from "../../zed/types.ts";

interface Node<T> {
  children: Map<Type | null, Node<T>> | undefined;
  value: T | undefined;
}

export class TypeVectorCache<T> {
  private root: Node<T> = { children: undefined, value: undefined };
  private lastKey: (Type | null)[] = [];
  private lastValue: T | undefined = undefined;

  /** The value for keys[0..n), or undefined. */
  get(keys: readonly (Type | null)[], n: number): T | undefined {
    const last = this.lastKey;
    if (this.lastValue !== undefined && last.length === n) {
      let i = 0;
      while (i < n && last[i] === keys[i]) i++;
      if (i === n) return this.lastValue;
    }
    let node: Node<T> | undefined = this.root;
    for (let i = 0; i < n && node !== undefined; i++) node = node.children?.get(keys[i]);
    if (node === undefined || node.value === undefined) return undefined;
    this.remember(keys, n, node.value);
    return node.value;
  }

  set(keys: readonly (Type | null)[], n: number, value: T): void {
    let node = this.root;
    for (let i = 0; i < n; i++) {
      if (node.children === undefined) node.children = new Map();
      let child = node.children.get(keys[i]);
      if (child === undefined) {
        child = { children: undefined, value: undefined };
        node.children.set(keys[i], child);
      }
      node = child;
    }
    node.value = value;
    this.remember(keys, n, value);
  }

  private remember(keys: readonly (Type | null)[], n: number, value: T): void {
    this.lastKey = keys.slice(0, n);
    this.lastValue = value;
  }
}
