// The window's door to the conversations' git worktrees: the generated
// bindings of app/desktop/worktree.go, each failure with an offer a
// Problem the window shows.
import * as Desktop from '../wailsjs/go/desktop/Desktop';
import type { desktop, worktree } from '../wailsjs/go/models';
import { toError, type FileDiff } from './backend';

type Data<T> = T extends (infer E)[]
  ? Data<E>[]
  : T extends object
    ? { [K in keyof T as T[K] extends (...a: never[]) => unknown ? never : K]: Data<T[K]> }
    : T;

export type WorktreeInfo = Data<desktop.WorktreeInfo>;
export type WorktreeProblem = Data<desktop.WorktreeProblem>;
export type WorktreeEntry = Data<desktop.WorktreeEntry>;
export type WorktreeReview = Data<worktree.Review>;
export type WorktreeMerged = Data<worktree.Merged>;
export type WorktreeRemoved = Data<worktree.Removed>;
export interface WorktreeOutcome {
  problem?: WorktreeProblem;
  worktree?: WorktreeInfo;
  review?: WorktreeReview;
  merged?: WorktreeMerged;
  removed?: WorktreeRemoved;
  proposed?: string;
}

export interface WorktreeBackend {
  /** The worktree the open workspace is, or null. */
  current(): Promise<WorktreeInfo | null>;
  /** A free name for a new worktree, or the problem (not a repository, ...). */
  propose(): Promise<WorktreeOutcome>;
  /** Creates the worktree and opens the window on it. */
  create(name: string): Promise<WorktreeOutcome>;
  review(): Promise<WorktreeOutcome>;
  commit(message: string): Promise<WorktreeOutcome>;
  merge(squash: boolean): Promise<WorktreeOutcome>;
  /** choice '' asks (a Problem lists the unsaved files, ignored ones marked),
   * 'commit' commits them first, 'delete' deletes the confirmed list,
   * 'commit-delete' commits the others and deletes the confirmed ignored ones. */
  remove(choice: RemoveChoice, confirmed: string[]): Promise<WorktreeOutcome>;
  /** The repository's worktrees, those whose folder was deleted outside the app marked missing. */
  list(): Promise<WorktreeEntry[]>;
  /** Opens the window on worktree name again. */
  open(name: string): Promise<WorktreeOutcome>;
  /** Forgets a worktree whose folder was deleted outside the app (the branch stays). */
  forget(name: string): Promise<WorktreeOutcome>;
  /** Puts the main checkout back where an interrupted merge of name found it. */
  rollback(name: string): Promise<WorktreeOutcome>;
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toError(e);
  }
}

export type RemoveChoice = '' | 'commit' | 'delete' | 'commit-delete';

/** An entry of a removal's list that git ignores ("path (ignored)" or
 * "folder/ (N files, ignored)"): never committed, kept or deleted. */
export function isIgnoredEntry(entry: string): boolean {
  return entry.endsWith(' (ignored)') || entry.endsWith(', ignored)');
}

export const worktreeBackend: WorktreeBackend = {
  current: () => call(Desktop.CurrentWorktree).then((w) => w ?? null),
  propose: () => call(Desktop.ProposeWorktree),
  create: (name) => call(() => Desktop.NewWorktreeConversation(name)),
  review: () => call(Desktop.ReviewWorktree),
  commit: (message) => call(() => Desktop.CommitWorktree(message)),
  merge: (squash) => call(() => Desktop.MergeWorktree(squash)),
  remove: (choice, confirmed) => call(() => Desktop.RemoveWorktree(choice, confirmed)),
  rollback: (name) => call(() => Desktop.RollBackWorktreeMerge(name)),
  list: () => call(Desktop.ListWorktrees),
  open: (name) => call(() => Desktop.OpenWorktreeConversation(name)),
  forget: (name) => call(() => Desktop.ForgetWorktree(name)),
};

const statusWord: Record<string, string> = { A: 'added', M: 'modified', D: 'deleted', T: 'modified' };

/** A worktree review's files as the review dialog shows them. */
export function reviewDiffs(r: WorktreeReview): FileDiff[] {
  return r.files.map((f) => {
    let added = 0;
    let removed = 0;
    for (const l of f.patch.split('\n')) {
      if (l.startsWith('+') && !l.startsWith('+++')) added++;
      else if (l.startsWith('-') && !l.startsWith('---')) removed++;
    }
    const binary = /^Binary files /m.test(f.patch);
    // Only the hunks: the dialog shows lines from the first @@ on.
    const at = f.patch.indexOf('\n@@');
    const diff = at >= 0 ? f.patch.slice(at + 1) : '';
    return { path: f.path, status: statusWord[f.status] ?? 'modified', added, removed, diff, binary } as FileDiff;
  });
}
