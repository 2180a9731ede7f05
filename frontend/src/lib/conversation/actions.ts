// What the conversation's items can ask the window to do.
import type { Failure } from './reducer';

export interface ItemActions {
  /** Answers a cell's input(). */
  reply(requestId: string, text: string): void;
  /** Sends a failed turn's prompt again. */
  retry(f: Failure): void;
  /** Opens the model setting. */
  openModelSettings(): void;
  /** Stores an API key by its variable name. */
  saveKey(name: string, key: string): Promise<void>;
  /** Puts text on the clipboard. */
  copy(text: string): Promise<void>;
}
