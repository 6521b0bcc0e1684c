// A map that keeps at most a given number of entries, dropping the least
// recently used: the bounded caches of every layer (parsed queries, branch
// tips, seek indexes, field indexes, object sizes) are these.

export class LruMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly max: number) {}

  get size(): number {
    return this.map.size;
  }

  /** The value of key, which becomes the most recently used. */
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      // A Map iterates in insertion order: the first key is the least recently used.
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  /** Sets key as the most recently used, dropping the least recently used past max. */
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }
}
