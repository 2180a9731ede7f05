// What the prompt box holds belongs to its conversation: switching to
// another conversation keeps it aside, and returning brings it back.
import type { Draft } from './attachments';

/** A prompt box's contents. */
export interface Held {
  text: string;
  images: Draft[];
  notes: string[];
}

export const empty = (): Held => ({ text: '', images: [], notes: [] });

/** The prompt boxes of the conversations of this window, by conversation
 * (a workspace and a session id). */
export class DraftBook {
  private held = new Map<string, Held>();
  private current = '';

  /** The conversation now shown is key; now is the prompt box's
   * contents. Returns what the box shows for key, or null to leave the box
   * as it is (key is the current conversation, or the first one shown
   * after one whose id was not known yet: "", as while a new one starts). */
  switchTo(key: string, now: Held): Held | null {
    if (key === this.current) return null;
    if (key === '') {
      // A conversation starting whose id is not known yet (a new one):
      // the box's contents stay with the one left, and what is typed
      // while the new one starts is the new one's.
      this.keep(this.current, now);
      this.current = '';
      return empty();
    }
    if (this.current === '') {
      // The first conversation shown: what was typed while it started
      // is its own.
      this.current = key;
      const held = this.held.get(key);
      this.held.delete(key);
      return held ?? null;
    }
    this.keep(this.current, now);
    this.current = key;
    const next = this.held.get(key) ?? empty();
    this.held.delete(key);
    return next;
  }

  /** Sets what the box shows when conversation key is next shown (a
   * fork's prompt, ready before the switch). Returns whether key is the
   * current conversation, whose box the caller fills itself. */
  prepare(key: string, h: Held): boolean {
    if (key === this.current) return true;
    this.keep(key, h);
    return false;
  }

  private keep(key: string, h: Held) {
    if (h.text.trim() === '' && h.images.length === 0) this.held.delete(key);
    else this.held.set(key, { text: h.text, images: [...h.images], notes: [...h.notes] });
  }
}

/** The key of a conversation: its workspace and session. */
export function conversationKey(workspace: string, session: string): string {
  return workspace && session ? `${workspace}\n${session}` : '';
}
