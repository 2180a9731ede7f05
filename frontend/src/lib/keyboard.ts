// The window's keyboard shortcuts: one table, which the window's handler
// matches and the shortcut sheet (F1) lists, so the two never disagree.

export type ShortcutId = 'new' | 'settings' | 'focus' | 'search' | 'stop' | 'quit' | 'help';

export interface Shortcut {
  id: ShortcutId;
  /** The keys, as shown: "Ctrl+N". */
  keys: string[];
  description: string;
}

export const SHORTCUTS: Shortcut[] = [
  { id: 'new', keys: ['Ctrl+N'], description: 'New conversation' },
  { id: 'settings', keys: ['Ctrl+,'], description: 'Settings' },
  { id: 'focus', keys: ['Ctrl+L', 'Esc'], description: 'Go to the message box' },
  { id: 'search', keys: ['Ctrl+K'], description: 'Search conversations' },
  { id: 'stop', keys: ['Esc', 'Ctrl+C'], description: 'Stop the running turn (Ctrl+C when no text is selected)' },
  { id: 'quit', keys: ['Ctrl+Q'], description: 'Quit' },
  { id: 'help', keys: ['F1', 'Ctrl+/'], description: 'This list of shortcuts' },
];

/** The keys of the approval bar, as in the terminal mode. */
export const APPROVAL_KEYS: { keys: string[]; description: string }[] = [
  { keys: ['y', 'Enter'], description: 'Yes: run this call' },
  { keys: ['n', 'Esc'], description: 'No: do not run it (the turn ends)' },
  { keys: ['a'], description: 'Always: edit the rule, see what it matches, Enter saves it' },
  { keys: ['s'], description: 'Session: allow calls like it in this conversation' },
  { keys: ['e'], description: 'Edit: change a code action before it runs' },
];

/** Keys of the message box and the settings panel. */
export const OTHER_KEYS: { keys: string[]; description: string }[] = [
  { keys: ['Enter'], description: 'Send the message' },
  { keys: ['Shift+Enter'], description: 'New line in the message' },
  { keys: ['@', '/'], description: 'Complete a file, or a skill' },
  { keys: ['Ctrl+S'], description: 'Save the open settings tab' },
  { keys: ['↑', '↓'], description: 'Move between settings tabs' },
];

export interface KeyContext {
  /** A turn is running. */
  running: boolean;
  /** Text is selected (a Ctrl+C then copies). */
  selection: boolean;
}

/** The shortcut a key press means, or null. */
export function shortcutOf(e: KeyboardEvent, ctx: KeyContext): ShortcutId | null {
  const ctrl = e.ctrlKey || e.metaKey;
  if (e.altKey) return null;
  if (e.key === 'F1' && !ctrl && !e.shiftKey) return 'help';
  if (e.key === 'Escape' && !ctrl && !e.shiftKey) return ctx.running ? 'stop' : 'focus';
  if (!ctrl || e.shiftKey) return null;
  switch (e.key.toLowerCase()) {
    case 'n':
      return 'new';
    case ',':
      return 'settings';
    case 'l':
      return 'focus';
    case 'k':
      return 'search';
    case 'q':
      return 'quit';
    case '/':
      return 'help';
    case 'c':
      return ctx.running && !ctx.selection ? 'stop' : null;
  }
  return null;
}

/** Whether text is selected in the page or in the focused field. */
export function hasSelection(): boolean {
  const a = document.activeElement;
  if (a instanceof HTMLTextAreaElement || (a instanceof HTMLInputElement && a.type === 'text')) {
    return (a.selectionStart ?? 0) !== (a.selectionEnd ?? 0);
  }
  return (window.getSelection()?.toString() ?? '') !== '';
}
