import { describe, expect, it } from 'vitest';
import type { AgentEvent } from './events';
import {
  answered,
  initialState,
  inputAnswered,
  MAX_OUTPUT_CHARS,
  openFailure,
  reduce,
  withGrants,
  withoutFailedCompaction,
  withoutFailedTurn,
  withFailureContinued,
  type ConversationState,
  type ToolItem,
} from './reducer';

function run(events: AgentEvent[], s: ConversationState = initialState(), now = 1000): ConversationState {
  for (const ev of events) s = reduce(s, ev, now);
  return s;
}

const code = (corr: string, src = 'print(1)', agent = 'main'): AgentEvent => ({
  type: 'ApprovalRequest',
  agent_id: agent,
  correlation_id: corr,
  request_id: `r-${corr}`,
  tool_call: { type: 'CodeAction', tool_name: 'ipybox_execute_ipython_cell', code: src },
  suggested_pattern: 'ipybox_execute_ipython_cell',
});
const chunk = (corr: string, text: string, agent = 'main'): AgentEvent => ({
  type: 'CodeExecutionOutputChunk',
  agent_id: agent,
  correlation_id: corr,
  kind: 'stdout',
  text,
});

describe('conversation reducer', () => {
  it('streams thoughts and a response, the complete event winning', () => {
    const s = run([
      { type: 'TurnStarted', agent_id: 'main' },
      { type: 'UserMessage', agent_id: 'main', text: 'hi' },
      { type: 'ThoughtsChunk', agent_id: 'main', text: 'Let me ' },
      { type: 'ThoughtsChunk', agent_id: 'main', text: 'think' },
      { type: 'ResponseChunk', agent_id: 'main', text: 'Hel' },
      { type: 'ResponseChunk', agent_id: 'main', text: 'lo' },
      { type: 'Thoughts', agent_id: 'main', text: 'Let me think' },
      { type: 'Response', agent_id: 'main', text: 'Hello!' },
    ]);
    expect(s.running).toBe(true);
    expect(s.items.map((i) => i.kind)).toEqual(['user', 'thoughts', 'response']);
    expect(s.items[1]).toMatchObject({ text: 'Let me think', done: true });
    expect(s.items[2]).toMatchObject({ text: 'Hello!', done: true });
  });

  it('queues approvals and records answers', () => {
    let s = run([code('c1'), code('c2', 'x = 2')]);
    expect(s.pending.map((p) => p.requestId)).toEqual(['r-c1', 'r-c2']);
    s = answered(s, 'r-c1', 'yes', 2000);
    expect(s.pending.map((p) => p.requestId)).toEqual(['r-c2']);
    expect(s.items[0]).toMatchObject({ kind: 'tool', status: 'running', startedAt: 2000 });
    s = answered(s, 'r-c2', 'no', 2000);
    expect(s.items[1]).toMatchObject({ status: 'rejected' });
    expect(answered(s, 'r-c2', 'yes', 3000)).toBe(s); // answered once
  });

  it('shows a call answered Never (a no that saves a deny rule) as rejected', () => {
    const s = answered(run([code('c1')]), 'r-c1', 'never', 2000);
    expect(s.pending).toEqual([]);
    expect(s.items[0]).toMatchObject({ kind: 'tool', status: 'rejected', endedAt: 2000 });
  });

  it('keeps the same request once', () => {
    const s = run([code('c1'), code('c1')]);
    expect(s.pending).toHaveLength(1);
  });

  it('puts shell approvals under their code action', () => {
    let s = run([
      code('c1', '!git status'),
      {
        type: 'ApprovalRequest',
        agent_id: 'main',
        correlation_id: 'c1',
        request_id: 'r9',
        tool_call: { type: 'ShellAction', tool_name: 'bash', command: 'git status' },
        display: 'git status',
        suggested_pattern: 'git status *',
      },
    ]);
    s = answered(s, 'r-c1', 'yes', 1);
    expect(s.items).toHaveLength(1);
    s = answered(s, 'r9', 'always', 2);
    const t = s.items[0] as ToolItem;
    expect(t.shell).toMatchObject([{ requestId: 'r9', command: 'git status', status: 'approved', approvedBy: null }]);
  });

  it('shows a resumed call with the badge of who let it run, not as new', () => {
    const tc = (id: string, name: string, args: unknown): AgentEvent => ({ type: 'ToolCall', agent_id: 'main', correlation_id: id, tool_name: name, args });
    const out = (id: string, name: string): AgentEvent => ({ type: 'ToolOutput', agent_id: 'main', correlation_id: id, tool_name: name, content: 'ok', is_error: false });
    // As app/desktop replays a session: the calls, who let them run, their outputs.
    const s = run([
      { type: 'TurnStarted', agent_id: 'main', history: true },
      tc('c1', 'ipybox_execute_ipython_cell', { code: 'print(1)' }),
      tc('w1', 'filesystem_write_text_file', { path: 'notes.txt', content: 'n' }),
      tc('j1', 'filesystem_write_text_file', { path: 'b.txt', content: 'n' }),
      { type: 'AutoApproved', agent_id: 'main', correlation_id: 'c1', by: 'sandbox', history: true },
      out('c1', 'ipybox_execute_ipython_cell'),
      { type: 'AutoApproved', agent_id: 'main', correlation_id: 'w1', by: 'rule', rule: 'filesystem_*(notes.txt)', history: true },
      out('w1', 'filesystem_write_text_file'),
      { type: 'AutoApproved', agent_id: 'main', correlation_id: 'j1', by: 'judge', reason: 'asked for', history: true },
      out('j1', 'filesystem_write_text_file'),
      { type: 'AutoApproved', agent_id: 'main', correlation_id: 'gone', by: 'sandbox', history: true },
      { type: 'TurnEnded', agent_id: 'main', history: true },
    ]);
    const tools = s.items.filter((it) => it.kind === 'tool') as ToolItem[];
    expect(tools.map((t) => [t.id, t.status, t.approvedBy])).toEqual([
      ['c1', 'done', { by: 'sandbox', rule: '', reason: '', resumed: true }],
      ['w1', 'done', { by: 'rule', rule: 'filesystem_*(notes.txt)', reason: '', resumed: true }],
      ['j1', 'done', { by: 'judge', rule: '', reason: 'asked for', resumed: true }],
    ]);
  });

  it('shows calls a rule or grant allowed, with who allowed them', () => {
    const s = run([
      {
        type: 'AutoApproved',
        agent_id: 'main',
        correlation_id: 'c1',
        tool_call: { type: 'CodeAction', tool_name: 'ipybox_execute_ipython_cell', code: '!ls\nprint(1)' },
        by: 'session',
        rule: 'ipybox_execute_ipython_cell',
      },
      {
        type: 'AutoApproved',
        agent_id: 'main',
        correlation_id: 'c1',
        tool_call: { type: 'ShellAction', tool_name: 'bash', command: 'ls' },
        display: 'ls',
        by: 'rule',
        rule: 'ls',
      },
      chunk('c1', 'a.txt\n'),
      { type: 'CodeExecutionOutputChunk', agent_id: 'main', correlation_id: 'c1', kind: 'image', text: '![image](images/p.png)\n' },
    ]);
    expect(s.pending).toHaveLength(0);
    const t = s.items[0] as ToolItem;
    expect(t).toMatchObject({
      status: 'running',
      call: { type: 'CodeAction', code: '!ls\nprint(1)' },
      approvedBy: { by: 'session', rule: 'ipybox_execute_ipython_cell', reason: '' },
      output: 'a.txt\n',
      images: ['images/p.png'],
    });
    expect(t.shell).toMatchObject([{ command: 'ls', status: 'approved', approvedBy: { by: 'rule', rule: 'ls' } }]);
  });

  it('ends a cell with a rejected shell part as rejected, naming the command', () => {
    const s = run([
      code('c1', '!touch x'),
      { type: 'CodeExecutionOutput', agent_id: 'main', correlation_id: 'c1', text: 'before\n', images: [], rejected: 'touch x' },
      { type: 'ToolOutput', agent_id: 'main', correlation_id: 'c1', tool_name: 'ipybox_execute_ipython_cell', content: 'The user rejected the shell command: touch x\nTool call rejected', is_error: true },
    ]);
    expect(s.items[0]).toMatchObject({ status: 'rejected', rejected: 'touch x', output: 'before\n', isError: true });
  });

  it("shows the end of a turn after a rejection as the app's notice, not as an answer", () => {
    const s = run([code('c1'), { type: 'Response', agent_id: 'main', text: 'Tool call rejected' }]);
    expect(s.items.at(-1)).toMatchObject({ kind: 'notice', level: 'rejected' });
    // A model that streams those very words is quoted as it said them.
    const t = run([
      { type: 'ResponseChunk', agent_id: 'main', text: 'Tool call rejected' },
      { type: 'Response', agent_id: 'main', text: 'Tool call rejected' },
    ]);
    expect(t.items.at(-1)).toMatchObject({ kind: 'response', text: 'Tool call rejected' });
  });

  it('keeps what a failed turn needs to be sent again, and drops the turn before it is', () => {
    let s = run([
      { type: 'TurnStarted', agent_id: 'main' },
      { type: 'UserMessage', agent_id: 'main', text: 'first' },
      { type: 'Response', agent_id: 'main', text: 'ok' },
      { type: 'TurnEnded', agent_id: 'main' },
      { type: 'TurnStarted', agent_id: 'main' },
      { type: 'UserMessage', agent_id: 'main', text: 'plot', images: ['data:image/png;base64,AA=='] },
      { type: 'Failed', agent_id: 'main', error: 'no key', cause: 'api_key', summary: 'No API key.', fix: 'Set it.', key_env: 'GEMINI_API_KEY' },
      { type: 'TurnEnded', agent_id: 'main' },
    ]);
    const f = openFailure(s.items)?.failure;
    expect(f).toMatchObject({ cause: 'api_key', keyEnv: 'GEMINI_API_KEY', prompt: 'plot', images: ['data:image/png;base64,AA=='] });
    s = withoutFailedTurn(s);
    expect(s.items.map((i) => i.kind)).toEqual(['user', 'response']);
    expect(openFailure(s.items)).toBeUndefined();
    expect(withoutFailedTurn(s)).toBe(s);
  });

  it('keeps a failed turn whose calls ran', () => {
    const s = run([
      { type: 'UserMessage', agent_id: 'main', text: 'go' },
      code('c1'),
      { type: 'Failed', agent_id: 'main', error: '503', cause: 'model', summary: 'Server error.', fix: 'Retry.', status: 503 },
    ]);
    expect(withoutFailedTurn(s)).toBe(s);
  });

  it('marks a failure whose actions were kept, and settles it once continued', () => {
    let s = run([
      { type: 'UserMessage', agent_id: 'main', text: 'go' },
      code('c1'),
      { type: 'Failed', agent_id: 'main', error: '400', cause: 'model', summary: 'Bad request.', fix: 'Fix.', status: 400, kept: true },
    ]);
    const open = openFailure(s.items);
    expect(open?.failure).toMatchObject({ kept: true, prompt: 'go' });
    // The continuation's own events may already be in: the settled notice
    // is the one named, not whichever is open by then.
    s = run([{ type: 'Failed', agent_id: 'main', error: '400', cause: 'model', summary: 'Again.', fix: 'Fix.', status: 400, kept: true }], s);
    s = withFailureContinued(s, open!.id);
    const notices = s.items.filter((i) => i.kind === 'notice');
    expect(notices.map((n) => [n.text, n.failure?.kept ?? null])).toEqual([
      ['Bad request.', null],
      ['Again.', true],
    ]);
    // A failure that kept nothing is not settled this way: it is sent again.
    const plain = run([
      { type: 'UserMessage', agent_id: 'main', text: 'go' },
      { type: 'Failed', agent_id: 'main', error: '503', cause: 'model', summary: 'Server error.', fix: 'Retry.', status: 503 },
    ]);
    expect(openFailure(plain.items)?.failure.kept).toBe(false);
    expect(withFailureContinued(plain, openFailure(plain.items)!.id).items).toEqual(plain.items);
  });

  it('lists the grants of the conversation and forgets them on Reset', () => {
    const grants = [{ type: 'ShellAction', tool_name: 'bash', command: 'git *' }];
    let s = run([{ type: 'SessionGrants', agent_id: 'sub-1', grants }]);
    expect(s.grants).toEqual(grants);
    s = withGrants(s, []);
    expect(s.grants).toEqual([]);
    s = run([{ type: 'SessionGrants', agent_id: 'main', grants }, { type: 'Reset', agent_id: 'main' }], s);
    expect(s.grants).toEqual([]);
  });

  it('handles output that arrives before its call and chunks after the end', () => {
    const s = run([
      chunk('c1', 'a\n'),
      code('c1'),
      chunk('c1', 'b\n'),
      { type: 'CodeExecutionOutput', agent_id: 'main', correlation_id: 'c1', text: 'a\nb\n', images: ['images/x.png'] },
      chunk('c1', 'late\n'),
    ]);
    expect(s.items).toHaveLength(1);
    const t = s.items[0] as ToolItem;
    expect(t).toMatchObject({ status: 'done', output: 'a\nb\n', lines: 2, images: ['images/x.png'] });
    expect(t.call?.type).toBe('CodeAction');
  });

  it('caps the output it keeps and counts what it dropped', () => {
    const big = 'x'.repeat(MAX_OUTPUT_CHARS);
    const t = run([chunk('c1', big), chunk('c1', 'tail\n')]).items[0] as ToolItem;
    expect(t.output.length).toBe(MAX_OUTPUT_CHARS);
    expect(t.output.endsWith('tail\n')).toBe(true);
    expect(t.dropped).toBe(5);
    expect(t.lines).toBe(1);
  });

  it('counts what the app left out of a flood', () => {
    const s = run([
      { type: 'CodeExecutionOutputChunk', agent_id: 'main', correlation_id: 'c1', kind: 'stdout', text: 'b\n', dropped_chars: 100, dropped_lines: 50 },
      { type: 'CodeExecutionOutput', agent_id: 'main', correlation_id: 'c1', text: 'b\nc\n', images: [], dropped_chars: 100, dropped_lines: 50 },
    ]);
    expect(s.items[0]).toMatchObject({ output: 'b\nc\n', dropped: 100, lines: 52 });
  });

  it('gives each subagent its own lane, interleaved with the main agent', () => {
    const s = run([
      { type: 'ResponseChunk', agent_id: 'main', text: 'Delegating. ' },
      { type: 'ResponseChunk', agent_id: 'sub-aa11', text: 'Sub A ' },
      { type: 'ResponseChunk', agent_id: 'sub-bb22', text: 'Sub B ' },
      { type: 'ResponseChunk', agent_id: 'sub-aa11', text: 'more' },
      code('s1', 'print(3)', 'sub-bb22'),
      chunk('s1', '3\n', 'sub-bb22'),
    ]);
    expect(s.items.map((i) => `${i.kind}:${i.id}`)).toEqual(['response:i1', 'lane:sub-aa11', 'lane:sub-bb22']);
    expect(s.lanes['sub-aa11']?.items).toMatchObject([{ kind: 'response', text: 'Sub A more' }]);
    expect(s.lanes['sub-bb22']?.items.map((i) => i.kind)).toEqual(['response', 'tool']);
    expect(s.pending[0]).toMatchObject({ agentId: 'sub-bb22', correlationId: 's1' });
  });

  it('shows a cancel, interrupts what ran and clears the queue at turn end', () => {
    let s = run([{ type: 'TurnStarted', agent_id: 'main' }, code('c1'), code('c2')]);
    s = answered(s, 'r-c1', 'yes', 1000);
    s = run(
      [
        chunk('c1', 'zzz'),
        { type: 'Cancelled', agent_id: 'main', phase: 'tool_execution' },
        { type: 'Usage', agent_id: 'main', model: 'google:g', input_tokens: 10, output_tokens: 5, thinking_tokens: 1 },
        { type: 'TurnEnded', agent_id: 'main' },
      ],
      s,
      4000,
    );
    expect(s.running).toBe(false);
    expect(s.pending).toEqual([]);
    expect(s.items[0]).toMatchObject({ status: 'interrupted', endedAt: 4000 });
    expect(s.items.map((i) => i.kind)).toEqual(['tool', 'tool', 'notice', 'usage']);
    expect(s.items[2]).toMatchObject({ level: 'cancelled', text: 'Cancelled (tool execution)' });
    expect(s.items[3]).toMatchObject({ input: 10, output: 5, thinking: 1 });
  });

  it('shows a cell that the cancel interrupted as interrupted, not failed', () => {
    let s = run([code('c1')]);
    s = answered(s, 'r-c1', 'yes', 1);
    s = run([
      { type: 'CodeExecutionOutput', agent_id: 'main', correlation_id: 'c1', text: 'KeyboardInterrupt', images: null, error: true },
      { type: 'Cancelled', agent_id: 'main', phase: 'tool_execution' },
    ], s);
    expect(s.items[0]).toMatchObject({ status: 'interrupted' });
  });

  it('takes the saved path of an image chunk', () => {
    const s = run([{ type: 'CodeExecutionOutputChunk', agent_id: 'main', correlation_id: 'c1', kind: 'image', text: '![image](/w/images/a.png)\n' }]);
    expect((s.items[0] as ToolItem).images).toEqual(['/w/images/a.png']);
  });

  it('attaches input() to its cell and records the answer', () => {
    let s = run([
      code('c1'),
      { type: 'InputRequest', agent_id: 'main', correlation_id: 'c1', request_id: 'r5', prompt: 'Name? ' },
    ]);
    expect((s.items[0] as ToolItem).input).toEqual({ requestId: 'r5', prompt: 'Name? ', password: false, answer: null });
    s = inputAnswered(s, 'r5', 'Ada');
    expect((s.items[0] as ToolItem).input?.answer).toBe('Ada');
  });

  it('renders history: tool calls with their results, and resets', () => {
    let s = run([
      { type: 'TurnStarted', agent_id: 'main', history: true },
      { type: 'UserMessage', agent_id: 'main', text: 'go' },
      { type: 'ToolCall', agent_id: 'main', correlation_id: 'c1', tool_name: 'ipybox_execute_ipython_cell', args: { code: '1+1' } },
      { type: 'ToolOutput', agent_id: 'main', correlation_id: 'c1', tool_name: 'ipybox_execute_ipython_cell', content: '2' },
      { type: 'TurnEnded', agent_id: 'main', history: true },
    ]);
    expect(s.running).toBe(false);
    expect(s.items[1]).toMatchObject({ kind: 'tool', status: 'done', result: '2', call: { type: 'CodeAction', code: '1+1' } });
    s = run([{ type: 'Reset', agent_id: 'main' }], s);
    expect(s.items).toEqual([]);
  });

  it('renders a rejected call of a resumed session as rejected, not as an error', () => {
    const call = (id: string): AgentEvent => ({ type: 'ToolCall', agent_id: 'main', correlation_id: id, tool_name: 'ipybox_execute_ipython_cell', args: { code: '!rm x' } });
    const out = (id: string, content: string, is_error = true): AgentEvent => ({
      type: 'ToolOutput',
      agent_id: 'main',
      correlation_id: id,
      tool_name: 'ipybox_execute_ipython_cell',
      content,
      is_error,
    });
    const s = run([
      { type: 'TurnStarted', agent_id: 'main', history: true },
      { type: 'UserMessage', agent_id: 'main', text: 'go' },
      call('c1'),
      out('c1', 'Tool call rejected'),
      call('c2'),
      out('c2', 'before\nThe user rejected the shell command: rm x\nTool call rejected'),
      call('c3'),
      out('c3', 'NameError: x'),
    ]);
    expect(s.items.filter((i) => i.kind === 'tool').map((i) => (i as ToolItem).status)).toEqual(['rejected', 'rejected', 'error']);
  });

  it('keeps unchanged items identical', () => {
    const s1 = run([{ type: 'UserMessage', agent_id: 'main', text: 'a' }, code('c1')]);
    const s2 = run([chunk('c1', 'x')], s1);
    expect(s2.items[0]).toBe(s1.items[0]);
    expect(s2.items[1]).not.toBe(s1.items[1]);
  });
});

describe('long sessions', () => {
  const files = (corr: string, checkpoint: string, ...f: [string, 'added' | 'modified' | 'deleted'][]): AgentEvent => ({
    type: 'FilesChanged',
    agent_id: 'main',
    correlation_id: corr,
    checkpoint,
    turn_id: 't1',
    files: f.map(([path, status]) => ({ path, status, added: 1, removed: 0 })),
  });
  const usage = (agent: string, cost: number | null): AgentEvent => ({
    type: 'Usage',
    agent_id: agent,
    model: 'google:g',
    input_tokens: 10,
    output_tokens: 1,
    thinking_tokens: 0,
    cost,
  });

  it('sums the cost of a turn and of each subagent', () => {
    const s = run([
      { type: 'TurnStarted', agent_id: 'main' },
      usage('main', 0.01),
      code('c1', 'x', 'sub-1'),
      usage('sub-1', 0.002),
      usage('sub-1', null),
      usage('main', 0.003),
      { type: 'TurnEnded', agent_id: 'main' },
    ]);
    expect(s.lanes['sub-1']?.cost).toBeCloseTo(0.002);
    expect(s.items.at(-1)).toMatchObject({ kind: 'usage', input: 40 });
    expect((s.items.at(-1) as { cost: number }).cost).toBeCloseTo(0.015);
    const unpriced = run([{ type: 'TurnStarted', agent_id: 'main' }, usage('main', null), { type: 'TurnEnded', agent_id: 'main' }]);
    expect(unpriced.items.at(-1)).toMatchObject({ kind: 'usage', cost: null });
  });

  it('keeps the session meter', () => {
    const s = run([
      {
        type: 'SessionUsage',
        agent_id: 'main',
        cost: 0.5,
        unpriced_calls: 1,
        budget: 2,
        context_tokens: 800,
        context_window: 1000,
        compact_at: 800,
        judge_cost: 0.125,
        judge_calls: 4,
      },
    ]);
    expect(s.session).toEqual({
      cost: 0.5,
      unpriced: 1,
      budget: 2,
      contextTokens: 800,
      contextWindow: 1000,
      compactAt: 800,
      judgeCost: 0.125,
      judgeCalls: 4,
    });
  });

  it('lists the files of each action and, at the end, of the turn', () => {
    const s = run([
      { type: 'TurnStarted', agent_id: 'main' },
      code('c1'),
      files('c1', 'k1', ['a.txt', 'added'], ['b.txt', 'modified']),
      code('c2'),
      files('c2', 'k2', ['a.txt', 'modified'], ['c.txt', 'added']),
      code('c3'),
      files('c3', 'k3', ['c.txt', 'deleted']),
      { type: 'TurnEnded', agent_id: 'main' },
    ]);
    expect((s.items[0] as ToolItem).changes).toMatchObject({ checkpoint: 'k1', revertedBy: '' });
    const turn = s.items.find((i) => i.kind === 'changes');
    // a.txt was new in the turn; c.txt came and went.
    expect(turn).toMatchObject({ turnId: 't1', checkpoints: ['k1', 'k2', 'k3'], revertedBy: '' });
    expect(turn && 'files' in turn && turn.files.map((f) => `${f.status} ${f.path}`)).toEqual(['added a.txt', 'modified b.txt']);
    expect(s.turnChanges).toEqual([]);
  });

  it('marks what a revert took back, and clears it when the revert is undone', () => {
    const reverted = (checkpoint: string, reverts: string[]): AgentEvent => ({
      type: 'Reverted',
      agent_id: 'main',
      checkpoint,
      reverts,
      label: 'Revert',
      files: [{ path: 'a.txt', status: 'modified', added: 1, removed: 1 }],
    });
    let s = run([
      { type: 'TurnStarted', agent_id: 'main' },
      code('c1'),
      files('c1', 'k1', ['a.txt', 'added']),
      { type: 'TurnEnded', agent_id: 'main' },
      reverted('r1', ['k1']),
    ]);
    const tool = () => s.items.find((i) => i.kind === 'tool') as ToolItem;
    const turn = () => s.items.find((i) => i.kind === 'changes');
    expect(tool().changes?.revertedBy).toBe('r1');
    expect(turn()).toMatchObject({ revertedBy: 'r1' });
    expect(s.items.at(-1)).toMatchObject({ kind: 'revert', checkpoint: 'r1', undoneBy: '' });
    s = run([reverted('r2', ['r1'])], s);
    expect(tool().changes?.revertedBy).toBe('');
    expect(turn()).toMatchObject({ revertedBy: '' });
    expect(s.items.find((i) => i.kind === 'revert' && i.checkpoint === 'r1')).toMatchObject({ undoneBy: 'r2', undoes: false });
    expect(s.items.at(-1)).toMatchObject({ kind: 'revert', checkpoint: 'r2', undoes: true });
  });

  it('keeps apart the files a revert left as they were, and forgets them when it is undone', () => {
    let s = run([
      { type: 'TurnStarted', agent_id: 'main' },
      code('c1'),
      files('c1', 'k1', ['a.txt', 'added'], ['b.txt', 'modified']),
      { type: 'TurnEnded', agent_id: 'main' },
      {
        type: 'Reverted',
        agent_id: 'main',
        checkpoint: 'r1',
        reverts: ['k1'],
        label: 'Revert',
        files: [{ path: 'a.txt', status: 'deleted', added: 0, removed: 1 }],
        kept: ['b.txt'],
      },
    ]);
    const tool = () => s.items.find((i) => i.kind === 'tool') as ToolItem;
    const turn = () => s.items.find((i) => i.kind === 'changes');
    expect(tool().changes).toMatchObject({ revertedBy: 'r1', kept: ['b.txt'] });
    expect(turn()).toMatchObject({ revertedBy: 'r1', kept: ['b.txt'] });
    s = run([{ type: 'Reverted', agent_id: 'main', checkpoint: 'r2', reverts: ['r1'], label: 'Undo', files: [] }], s);
    expect(tool().changes).toMatchObject({ revertedBy: '', kept: [] });
    expect(turn()).toMatchObject({ revertedBy: '', kept: [] });
  });

  it('fills in a compaction when it is done', () => {
    let s = run([{ type: 'Compacting', agent_id: 'main', reason: 'manual', messages: 4 }]);
    expect(s.items[0]).toMatchObject({ kind: 'compaction', summary: null });
    s = run(
      [
        {
          type: 'Compacted',
          agent_id: 'main',
          reason: 'manual',
          summary: 'S',
          messages: 4,
          tokens_before: 900,
          tokens_after: 100,
        },
      ],
      s,
    );
    expect(s.items).toHaveLength(1);
    expect(s.items[0]).toMatchObject({ summary: 'S', tokensBefore: 900, tokensAfter: 100 });
  });

  it('ends a failed "Compact now" without the earlier prompt, and drops it before a retry', () => {
    let s = run([
      { type: 'UserMessage', agent_id: 'main', text: 'Run the tool' } as AgentEvent,
      { type: 'TurnEnded', agent_id: 'main' },
      { type: 'TurnStarted', agent_id: 'main' },
      { type: 'Compacting', agent_id: 'main', reason: 'manual', messages: 4 },
      {
        type: 'Failed',
        agent_id: 'main',
        error: 'HTTP 400: bad request',
        cause: 'model',
        summary: 'The provider refused the request (HTTP 400).',
        fix: 'Try again.',
        action: 'compact',
      },
    ]);
    expect(s.items.find((i) => i.kind === 'compaction')).toMatchObject({ summary: null, failed: true });
    const f = openFailure(s.items);
    expect(f?.failure).toMatchObject({ action: 'compact', prompt: '', summary: 'The provider refused the request (HTTP 400).' });
    s = withoutFailedCompaction(s);
    expect(s.items.some((i) => i.kind === 'compaction' || (i.kind === 'notice' && i.failure))).toBe(false);
    expect(s.items.some((i) => i.kind === 'user')).toBe(true);
  });

  it('holds a budget request until the turn ends', () => {
    let s = run([
      { type: 'TurnStarted', agent_id: 'main' },
      { type: 'BudgetRequest', agent_id: 'main', request_id: 'b1', spent: 1, budget: 1, estimate: 0.1 },
    ]);
    expect(s.budget).toMatchObject({ requestId: 'b1', spent: 1 });
    s = run([{ type: 'TurnEnded', agent_id: 'main' }], s);
    expect(s.budget).toBeNull();
  });
});

describe('a conversation shown again', () => {
  it('does not ask again what was answered before it left the view', () => {
    let s = run([{ type: 'TurnStarted', agent_id: 'main' }, code('c1'), code('c2')]);
    expect(s.pending.map((p) => p.requestId)).toEqual(['r-c1', 'r-c2']);
    s = run([{ type: 'Answered', agent_id: 'main', request_id: 'r-c1', decision: 'yes' }], s);
    expect(s.pending.map((p) => p.requestId)).toEqual(['r-c2']);
    s = run([{ type: 'Answered', agent_id: 'main', request_id: 'r-c2', decision: 'no' }], s);
    expect(s.pending).toEqual([]);
  });
});
