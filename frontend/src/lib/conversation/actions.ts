// What the user can do with the conversation's items: review and revert
// file changes, fork the session at a prompt, answer input, retry, copy.
// App provides them; the conversation components call them.
import type { Failure } from './reducer';

export interface ReviewActions {
  /** Opens the diff of checkpoint id (an action, a turn, a revert). */
  review(id: string, title: string, scope: 'action' | 'turn' | 'revert'): void;
  /** Asks, then reverts checkpoint id. */
  revert(id: string, title: string, scope: 'action' | 'turn' | 'revert'): void;
  /** Forks the session before prompt turn; the prompt goes to the box. */
  fork(turn: number): void;
  /** Forks before prompt turn and sends text there instead. */
  edit(turn: number, text: string): void;
  /** Whether a turn runs (no forks or reverts meanwhile). */
  busy(): boolean;
}

/** Everything the items can ask for, review included. */
export interface ItemActions extends ReviewActions {
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
