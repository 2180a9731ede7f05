// Errors and notices shown at the top of the window. A banner with a key
// stands for one cause: pushing the same key replaces it, and clear(key)
// takes it away when the cause is gone. The same message is never shown
// twice, and only the newest few stay, so old errors do not pile up.
// A notice (what was just done: created, forked, exported) belongs to its
// conversation, shows one at a time, and goes by itself a while after it is
// first shown.

export type BannerKind = 'error' | 'info';

export interface Banner {
  id: number;
  kind: BannerKind;
  message: string;
  key: string;
  /** The conversation it belongs to; '' for the whole window. */
  conversation: string;
  /** A notice: it replaces the previous one and expires. */
  notice: boolean;
}

/** How many banners show at most; older ones are dropped. */
export const MAX_BANNERS = 3;

/** How long a notice shows, in milliseconds. */
export const NOTICE_MS = 8000;

export class Banners {
  items: Banner[] = $state([]);
  #next = 1;
  #timed = new Set<number>();

  /** Shows a banner. key names its cause ('' for none): a banner of the
   * same key is replaced. A message already shown is not repeated. */
  push(kind: BannerKind, message: string, key = ''): number {
    const same = (b: Banner) => (key !== '' && b.key === key) || (b.kind === kind && b.message === message);
    const old = this.items.find(same);
    // A repeat keeps its id and becomes the newest.
    const id = old && old.kind === kind && old.message === message ? old.id : this.#next++;
    this.items = [...this.items.filter((b) => !same(b)), { id, kind, message, key, conversation: '', notice: false }].slice(-MAX_BANNERS);
    return id;
  }

  /** Says what was just done in conversation (its key; '' for the
   * window): it replaces the previous notice and goes after NOTICE_MS.
   * key names the action (as error's key does): its success ends the
   * error an earlier try of it left, which would otherwise stay above. */
  notify(message: string, conversation: string, key = ''): number {
    const id = this.#next++;
    const stale = (b: Banner) => b.notice || (key !== '' && b.key === key);
    this.items = [...this.items.filter((b) => !stale(b)), { id, kind: 'info' as const, message, key, conversation, notice: true }].slice(
      -MAX_BANNERS,
    );
    return id;
  }


  /** The banners were shown: a notice goes NOTICE_MS after it is first
   * shown (a fork's notice waits for the fork to show). */
  shown(list: Banner[]): void {
    for (const b of list) {
      if (!b.notice || this.#timed.has(b.id)) continue;
      this.#timed.add(b.id);
      setTimeout(() => {
        this.#timed.delete(b.id);
        this.dismiss(b.id);
      }, NOTICE_MS);
    }
  }

  /** The banners shown with conversation (its key): the window's and its
   * own. */
  shownIn(conversation: string): Banner[] {
    return this.items.filter((b) => b.conversation === '' || b.conversation === conversation);
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
