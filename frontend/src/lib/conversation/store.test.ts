import { describe, expect, it } from 'vitest';
import type { AgentEvent } from './events';
import { Conversation } from './store.svelte';
import type { ConversationState, ToolItem } from './reducer';

const TOOL = 'ipybox_execute_ipython_cell';
const main = { agent_id: 'main' };
const usage = (input: number, output: number, cost: number): AgentEvent => ({
  type: 'Usage',
  ...main,
  model: 'google:gemini-3-flash-preview',
  input_tokens: input,
  output_tokens: output,
  thinking_tokens: 0,
  cost,
});
const ask = (corr: string, code: string): AgentEvent => ({
  type: 'ApprovalRequest',
  ...main,
  correlation_id: corr,
  request_id: `r-${corr}`,
  tool_call: { type: 'CodeAction', tool_name: TOOL, code },
  suggested_pattern: TOOL,
});
const output = (corr: string, content: string, is_error: boolean, elapsed_ms?: number): AgentEvent => ({
  type: 'ToolOutput',
  ...main,
  correlation_id: corr,
  tool_name: TOOL,
  content,
  is_error,
  elapsed_ms,
});
const call = (corr: string, code: string): AgentEvent => ({ type: 'ToolCall', ...main, correlation_id: corr, tool_name: TOOL, args: { code } });
const compactFailed: AgentEvent = { type: 'Failed', ...main, error: 'the summary was cut off', summary: 'The summary was cut off.', action: 'compact' };
const cut: AgentEvent = { type: 'ReplyCut', ...main, text: "The model's reply was cut at 400 output tokens", setting: 'model_settings.max_tokens' };

/** What a person reads off the conversation: each card's status and time,
 * each turn's usage line, the notices. */
function figures(s: ConversationState) {
  return s.items.flatMap((it) => {
    if (it.kind === 'tool') {
      const t = it as ToolItem;
      const time = t.startedAt === null || t.endedAt === null ? '' : ((t.endedAt - t.startedAt) / 1000).toFixed(1);
      return [`card ${t.status} ${time}`];
    }
    if (it.kind === 'usage') return [`usage ${it.input} ${it.output} ${it.cost?.toFixed(4)}`];
    if (it.kind === 'notice') return [`notice ${it.level}`];
    return [];
  });
}

describe('a resumed conversation', () => {
  it("shows a cell the user ran with its edit, images, time and files, as it did live", () => {
    const run = 'run-0a1b2c3d';
    const m = { ...main, correlation_id: run };
    const started: AgentEvent = { type: 'CellStarted', ...m, code: "print('asked')", source: 'rerun', of: 'c1', index: 1, total: 1 };
    const edited: AgentEvent = { type: 'CodeEdited', ...m, code: "print('edited')" };
    const files: AgentEvent = {
      type: 'FilesChanged',
      ...m,
      checkpoint: 'ck1',
      turn_id: 't1',
      files: [{ path: 'made.txt', status: 'added', added: 1, removed: 0 }],
    };
    const out = (elapsed_ms?: number): AgentEvent => ({
      type: 'CodeExecutionOutput',
      ...m,
      text: 'edited\n![image](/ws/images/a.png)',
      images: ['/ws/images/a.png'],
      elapsed_ms,
    });
    const live = new Conversation();
    live.apply([started, edited], 1000);
    live.apply([out(), files], 2500);
    const resumed = new Conversation();
    resumed.apply([started, edited, out(1500), files], 99_000);
    const shown = (c: Conversation) => {
      const t = c.state.items.find((it) => it.kind === 'tool') as ToolItem;
      return {
        code: t.call?.type === 'CodeAction' ? t.call.code : '',
        original: t.original,
        images: t.images,
        time: t.endedAt !== null && t.startedAt !== null ? t.endedAt - t.startedAt : null,
        checkpoint: t.changes?.checkpoint,
        status: t.status,
      };
    };
    expect(shown(live)).toEqual({ code: "print('edited')", original: "print('asked')", images: ['/ws/images/a.png'], time: 1500, checkpoint: 'ck1', status: 'done' });
    expect(shown(resumed)).toEqual(shown(live));
  });

  it('shows each turn with the cost, time and status it had live', () => {
    const live = new Conversation();
    // Turn 1: approved at 1 s, the cell ran 0.74 s by the agent's clock
    // (the window saw its events a little later).
    live.apply([{ type: 'TurnStarted', ...main }, { type: 'UserMessage', ...main, text: 'sleep' }, usage(2000, 200, 0.0016), ask('c1', 'sleep()')], 500);
    live.answer('r-c1', 'yes', 1000);
    live.apply([{ type: 'CodeExecutionOutput', ...main, correlation_id: 'c1', text: 'slept', images: null }], 1790);
    live.apply([output('c1', 'slept', false, 740), usage(2400, 100, 0.0015), { type: 'Response', ...main, text: 'Slept.' }, { type: 'TurnEnded', ...main }], 1800);
    // Turn 2: rejected.
    live.apply([{ type: 'TurnStarted', ...main }, { type: 'UserMessage', ...main, text: 'print' }, usage(2600, 150, 0.0018), ask('c2', 'print()')], 2000);
    live.answer('r-c2', 'no', 2500);
    live.apply([output('c2', 'Tool call rejected', true), { type: 'Response', ...main, text: 'Tool call rejected' }, { type: 'TurnEnded', ...main }], 2510);
    // Turn 3: the cell raised; then a reply cut at the token limit.
    live.apply([{ type: 'TurnStarted', ...main }, { type: 'UserMessage', ...main, text: 'divide' }, usage(2800, 120, 0.0018), ask('c3', '1/0')], 3000);
    live.answer('r-c3', 'yes', 3100);
    live.apply([{ type: 'CodeExecutionOutput', ...main, correlation_id: 'c3', text: 'ZeroDivisionError', images: null, error: true }], 3420);
    live.apply([output('c3', 'ZeroDivisionError', true, 300), usage(3100, 400, 0.0028), { type: 'Response', ...main, text: 'The start of' }, cut, { type: 'TurnEnded', ...main }], 3430);
    // "Compact now": the summary came back cut, after it was paid for.
    live.apply([{ type: 'TurnStarted', ...main }, { type: 'Compacting', ...main, reason: 'manual', messages: 6 }, usage(5000, 600, 0.0043), compactFailed, { type: 'TurnEnded', ...main }], 4000);

    // The same session from its file, all at one moment.
    const resumed = new Conversation();
    const h = { history: true };
    resumed.apply(
      [
        { type: 'TurnStarted', ...main, ...h },
        { type: 'UserMessage', ...main, text: 'sleep' },
        call('c1', 'sleep()'),
        usage(2000, 200, 0.0016),
        output('c1', 'slept', false, 740),
        { type: 'Response', ...main, text: 'Slept.' },
        usage(2400, 100, 0.0015),
        { type: 'TurnEnded', ...main, ...h },
        { type: 'TurnStarted', ...main, ...h },
        { type: 'UserMessage', ...main, text: 'print' },
        call('c2', 'print()'),
        usage(2600, 150, 0.0018),
        output('c2', 'Tool call rejected', true),
        { type: 'Response', ...main, text: 'Tool call rejected' },
        { type: 'TurnEnded', ...main, ...h },
        { type: 'TurnStarted', ...main, ...h },
        { type: 'UserMessage', ...main, text: 'divide' },
        call('c3', '1/0'),
        usage(2800, 120, 0.0018),
        output('c3', 'ZeroDivisionError', true, 300),
        { type: 'Response', ...main, text: 'The start of' },
        cut,
        usage(3100, 400, 0.0028),
        { type: 'TurnEnded', ...main, ...h },
        { type: 'TurnStarted', ...main, ...h },
        usage(5000, 600, 0.0043),
        compactFailed,
        { type: 'TurnEnded', ...main, ...h },
      ],
      99_000,
    );
    const want = figures(live.state);
    expect(want).toEqual([
      'card done 0.7',
      'usage 4400 300 0.0031',
      'card rejected ',
      'notice rejected',
      'usage 2600 150 0.0018',
      'card error 0.3',
      'notice cut',
      'usage 5900 520 0.0046',
      'notice failed',
      'usage 5000 600 0.0043',
    ]);
    expect(figures(resumed.state)).toEqual(want);
  });
});
