// Work that must not overlap, queued by key: a lake's commits to one branch
// from this process run one after another (each sees the tip the one before
// left), so concurrent writers never exhaust the optimistic retry, which
// stays for writers in other processes.

export class KeyedQueue {
  private tails = new Map<string, Promise<unknown>>();

  /** Runs fn once everything queued before it under key has settled. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const result = before.then(fn, fn);
    const tail = result.then(() => {}, () => {});
    this.tails.set(key, tail);
    // The last one out forgets the key, so idle keys hold nothing.
    tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** How many keys have work queued or running. */
  get size(): number {
    return this.tails.size;
  }
}
