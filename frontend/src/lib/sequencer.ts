// Puts numbered messages back in order. The Go side numbers every event it
// sends to the window; a browser on the dev server can receive them out of
// order (each is sent from its own goroutine). A message that arrives early
// waits for the ones before it, at most maxWaitMs, after which the gap is
// skipped so that nothing stalls for good.

export interface Numbered<T> {
  seq: number;
  data: T;
}

export class Sequencer<T> {
  // The Go side numbers from 1. After a page reload the numbers go on from
  // where they were: the first message then waits maxWaitMs once.
  #next = 1;
  #waiting = new Map<number, T>();
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private deliver: (data: T) => void,
    private maxWaitMs = 500,
  ) {}

  push(m: Numbered<T>): void {
    if (m.seq < this.#next) {
      // Older than what was delivered: late, but not lost.
      this.deliver(m.data);
      return;
    }
    this.#waiting.set(m.seq, m.data);
    this.#drain();
    if (this.#waiting.size > 0 && this.#timer === null) {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.#skipGap();
      }, this.maxWaitMs);
    }
  }

  #drain(): void {
    while (this.#waiting.has(this.#next)) {
      const d = this.#waiting.get(this.#next) as T;
      this.#waiting.delete(this.#next);
      this.#next++;
      this.deliver(d);
    }
    if (this.#waiting.size === 0 && this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
  }

  #skipGap(): void {
    if (this.#waiting.size === 0) return;
    this.#next = Math.min(...this.#waiting.keys());
    this.#drain();
    if (this.#waiting.size > 0) {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.#skipGap();
      }, this.maxWaitMs);
    }
  }
}
