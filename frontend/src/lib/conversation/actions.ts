// What the user can do with past parts of the conversation: review and
// revert file changes, fork the session at a prompt. App provides it; the
// conversation components call it.
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
