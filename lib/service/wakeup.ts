// One waiter at a time, woken by the next wake(): how a producer waits for
// credit or a consumer for data, within one thread.

export class Wakeup {
  private waiter: (() => void) | null = null;

  /** Settles at the next wake(). */
  wait(): Promise<void> {
    return new Promise((r) => (this.waiter = r));
  }

  /** Wakes the waiter, if any. */
  wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }
}
