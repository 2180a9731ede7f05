// The reducer's side of the kernel workflow: edited code actions, cells the
// user runs again, notebook cells, replays and kernel state notes.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from './events';
import { answered, initialState, notebookCellId, reduce, type ConversationState, type ToolItem } from './reducer';

function run(events: AgentEvent[], s: ConversationState = initialState(), now = 1000): ConversationState {
  for (const ev of events) s = reduce(s, ev, now);
  return s;
}

const cell = (corr: string, src: string): AgentEvent[] => [
  { type: 'ToolCall', agent_id: 'main', correlation_id: corr, tool_name: 'ipybox_execute_ipython_cell', args: { code: src } },
  { type: 'ToolOutput', agent_id: 'main', correlation_id: corr, tool_name: 'ipybox_execute_ipython_cell', content: 'out' },
];
const started = (corr: string, src: string, source: 'rerun' | 'notebook' | 'replay', of = '', index = 1, total = 1): AgentEvent => ({
  type: 'CellStarted',
  agent_id: 'main',
  correlation_id: corr,
  code: src,
  source,
  of,
  index,
  total,
});
const output = (corr: string, text: string, error = false): AgentEvent => ({
  type: 'CodeExecutionOutput',
  agent_id: 'main',
  correlation_id: corr,
  text,
  images: null,
  error,
});
const tools = (s: ConversationState) => s.items.filter((i): i is ToolItem => i.kind === 'tool');

describe('the kernel workflow in the reducer', () => {
  it('shows the code that ran when the user edited it, keeping the model’s', () => {
    const s = run([
      {
        type: 'ApprovalRequest',
        agent_id: 'main',
        correlation_id: 'c1',
        request_id: 'r1',
        tool_call: { type: 'CodeAction', tool_name: 'ipybox_execute_ipython_cell', code: 'x = 1' },
        suggested_pattern: 'ipybox_execute_ipython_cell',
      },
      { type: 'CodeEdited', agent_id: 'main', correlation_id: 'c1', code: 'x = 2' },
      { type: 'CodeEdited', agent_id: 'main', correlation_id: 'c1', code: 'x = 3' },
    ]);
    expect(tools(s)[0]).toMatchObject({ call: { code: 'x = 3' }, original: 'x = 1' });
  });

  it('places each run of a cell after the cell and its earlier runs', () => {
    const s = run([
      ...cell('c1', 'a = 1'),
      ...cell('c2', 'b = 2'),
      started('run-1', 'print(a)', 'rerun', 'c1'),
      output('run-1', '1\n'),
      started('run-2', 'print(a + 1)', 'rerun', 'c1'),
      { type: 'CodeExecutionOutputChunk', agent_id: 'main', correlation_id: 'run-2', kind: 'stdout', text: '2\n' },
      started('run-3', 'print("alone")', 'rerun'),
    ]);
    expect(tools(s).map((t) => t.id)).toEqual(['c1', 'run-1', 'run-2', 'c2', 'run-3']);
    expect(tools(s)[1]).toMatchObject({ status: 'done', output: '1\n', run: { source: 'rerun', of: 'c1' }, call: { code: 'print(a)' } });
    expect(tools(s)[2]).toMatchObject({ status: 'running', output: '2\n' });
  });

  it('shows an opened notebook and runs its cells in place', () => {
    let s = run([
      {
        type: 'NotebookOpened',
        agent_id: 'main',
        path: 'analysis.ipynb',
        cells: [
          { id: 'n1', type: 'markdown', source: '# Title' },
          { id: 'n2', type: 'code', source: 'x = 20', output: 'saved' },
        ],
      },
    ]);
    expect(s.items.map((i) => i.kind)).toEqual(['notebook', 'nbmarkdown', 'tool']);
    expect(s.items[0]).toMatchObject({ path: 'analysis.ipynb', cells: 2 });
    expect(tools(s)[0]).toMatchObject({ id: notebookCellId('n2'), status: 'idle', result: 'saved' });
    // A turn that ends meanwhile leaves the cells that have not run alone.
    s = run([{ type: 'TurnStarted', agent_id: 'main' }, { type: 'TurnEnded', agent_id: 'main' }], s);
    expect(tools(s)[0]).toMatchObject({ status: 'idle' });
    s = run([started('run-9', 'x = 20', 'notebook', 'n2', 1, 1)], s);
    // The time it waits for its approval is not its run time.
    expect(tools(s)[0]).toMatchObject({ id: 'run-9', status: 'running', startedAt: null });
    // Run all asks for each cell first.
    s = run(
      [
        {
          type: 'ApprovalRequest',
          agent_id: 'main',
          correlation_id: 'run-9',
          request_id: 'r9',
          tool_call: { type: 'CodeAction', tool_name: 'ipybox_execute_ipython_cell', code: 'x = 20' },
          suggested_pattern: 'ipybox_execute_ipython_cell',
        },
      ],
      s,
    );
    expect(tools(s)[0]).toMatchObject({ status: 'asking' });
    s = answered(s, 'r9', 'yes', 4000);
    expect(tools(s)[0]).toMatchObject({ status: 'running', startedAt: 4000 });
    s = run([output('run-9', '')], s, 6500);
    expect(s.items).toHaveLength(3);
    expect(tools(s)[0]).toMatchObject({ id: 'run-9', status: 'done', result: null, run: { source: 'notebook', of: 'n2' } });
    expect(tools(s)[0]).toMatchObject({ startedAt: 4000, endedAt: 6500 });
  });

  it('keeps a replay’s cells out of the conversation, its progress in the state', () => {
    let s = run([...cell('c1', 'x = 1'), started('run-1', 'x = 1', 'replay', 'c1', 1, 2)]);
    expect(s.replay).toMatchObject({ running: true, index: 1, total: 2, ran: 0 });
    s = run(
      [
        { type: 'CodeExecutionOutputChunk', agent_id: 'main', correlation_id: 'run-1', kind: 'stdout', text: 'noise' },
        output('run-1', ''),
        started('run-2', 'boom', 'replay', 'c2', 2, 2),
        {
          type: 'ApprovalRequest',
          agent_id: 'main',
          correlation_id: 'run-2',
          request_id: 'r7',
          tool_call: { type: 'ShellAction', tool_name: 'bash', command: 'ls' },
          suggested_pattern: 'ls *',
        },
        output('run-2', 'NameError', true),
      ],
      s,
    );
    expect(tools(s).map((t) => t.id)).toEqual(['c1']);
    expect(s.pending.map((p) => p.requestId)).toEqual(['r7']);
    expect(s.replay).toMatchObject({ running: true, index: 2, ran: 2, failed: 1 });
    s = run([{ type: 'CellsFinished', agent_id: 'main', source: 'replay', ran: 2, failed: 1, total: 2 }], s);
    expect(s.replay).toMatchObject({ running: false, ran: 2, failed: 1, stopped: false });
    // A later replay starts afresh.
    s = run([started('run-5', 'x = 1', 'replay', 'c1', 1, 1)], s);
    expect(s.replay).toMatchObject({ running: true, ran: 0, failed: 0, runs: ['run-5'] });
  });

  it('notes what happened to the kernel’s state', () => {
    const s = run([{ type: 'KernelStateNote', agent_id: 'main', event: 'restarted', text: 'The user restarted the kernel.' }]);
    expect(s.items[0]).toMatchObject({ kind: 'notice', level: 'kernel', text: 'The user restarted the kernel.' });
  });
});
