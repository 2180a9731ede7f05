// Errors and notices shown at the top of the window. A banner with a key
// stands for one cause: pushing the same key replaces it, and clear(key)
// takes it away when the cause is gone. The same message is never shown
// twice, and only the newest few stay, so old errors do not pile up.

export type BannerKind = 'error' | 'info';

export interface Banner {
  id: number;
  kind: BannerKind;
  message: string;
  key: string;
}

/** How many banners show at most; older ones are dropped. */
export const MAX_BANNERS = 3;

export class Banners {
  items: Banner[] = $state([]);
  #next = 1;

  /** Shows a banner. key names its cause ('' for none): a banner of the
   * same key is replaced. A message already shown is not repeated. */
  push(kind: BannerKind, message: string, key = ''): number {
    const same = (b: Banner) => (key !== '' && b.key === key) || (b.kind === kind && b.message === message);
    const old = this.items.find(same);
    // A repeat keeps its id and becomes the newest.
    const id = old && old.kind === kind && old.message === message ? old.id : this.#next++;
    this.items = [...this.items.filter((b) => !same(b)), { id, kind, message, key }].slice(-MAX_BANNERS);
    return id;
  }

  error(e: unknown, key = ''): number {
    return this.push('error', e instanceof Error ? e.message : String(e), key);
  }

  dismiss(id: number): void {
    this.items = this.items.filter((b) => b.id !== id);
  }

  /** Removes the banners of a cause that is gone. */
  clear(key: string): void {
    if (this.items.some((b) => b.key === key)) this.items = this.items.filter((b) => b.key !== key);
  }
}
