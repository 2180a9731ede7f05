// Errors and notices shown at the top of the window until dismissed: no
// failure is ever silent.

export type BannerKind = 'error' | 'info';

export interface Banner {
  id: number;
  kind: BannerKind;
  message: string;
}

export class Banners {
  items: Banner[] = $state([]);
  #next = 1;

  /** Shows a banner; the same message twice in a row is shown once. */
  push(kind: BannerKind, message: string): number {
    const last = this.items.at(-1);
    if (last && last.kind === kind && last.message === message) return last.id;
    const id = this.#next++;
    this.items.push({ id, kind, message });
    return id;
  }

  error(e: unknown): number {
    return this.push('error', e instanceof Error ? e.message : String(e));
  }

  dismiss(id: number): void {
    this.items = this.items.filter((b) => b.id !== id);
  }
}
