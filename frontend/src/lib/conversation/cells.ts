// What a conversation's cells can do besides showing themselves: run
// again, as they were or edited, and run an opened notebook. App provides
// the actions; ToolBlock and the notebook header read them from the
// component context, so the lists in between need not pass them along.
import { getContext, setContext } from 'svelte';

export interface CellActions {
  /** Whether a cell can run now: the kernel is ready and no turn runs. */
  readonly canRun: boolean;
  /** Runs code as the user's own action: again, of the cell it runs
   * again, or a notebook cell (of its id in the notebook) in place. */
  run(code: string, of: string, source: 'rerun' | 'notebook'): void;
  /** Runs the opened notebook's code cells, each approved. */
  runNotebook(): void;
}

/** The context key, for tests that render a cell without App. */
export const cellActionsKey = Symbol('cell actions');

export function provideCellActions(actions: CellActions): void {
  setContext(cellActionsKey, actions);
}

/** The actions App provides; undefined where none are (a test, an export). */
export function cellActions(): CellActions | undefined {
  return getContext<CellActions | undefined>(cellActionsKey);
}
