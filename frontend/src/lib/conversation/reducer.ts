// The conversation view model and its reducer: agent events in, what the
// window shows out. The reducer is pure and never mutates its input, so
// unchanged items keep their identity and their components do not re-render.
import {
  EXECUTE_TOOL,
  MAIN,
  REJECTED,
  type AgentEvent,
  type ApprovedBy,
  type CellSource,
  type FileChange,
  type LogLine,
  type RuleData,
  type ToolCallData,
} from './events';

/** Output kept per code action; older output is dropped (the count stays). */
export const MAX_OUTPUT_CHARS = 300_000;

/** idle: a notebook cell that has not run in this kernel. */
export type ToolStatus = 'idle' | 'asking' | 'running' | 'done' | 'error' | 'rejected' | 'interrupted';

/** A cell the user ran rather than the model: how and of which cell. */
export interface RunView {
  source: CellSource;
  /** The id of the cell it ran again, or of its notebook cell. */
  of: string;
  index: number;
  total: number;
}

export interface ShellView {
  requestId: string;
  /** The command as its approval shows it. */
  command: string;
  call: ToolCallData;
  status: 'asking' | 'approved' | 'rejected';
  /** Set when a rule or grant allowed the command without asking. */
  approvedBy: Approval | null;
}

/** Who let a call run without asking, by which rule, and (auto mode's
 * judge) why. */
export interface Approval {
  by: ApprovedBy;
  rule: string;
  /** The judge's reason (by "judge"); "" otherwise. */
  reason: string;
  /** It ran before this conversation was resumed: shown, never "new". */
  resumed?: boolean;
}

export interface InputView {
  requestId: string;
  prompt: string;
  password: boolean;
  answer: string | null; // null until answered
}

export interface UserItem {
  kind: 'user';
  id: string;
  text: string;
  images: string[];
  /** The prompt's number in the session (from 1); 0 when unknown. */
  turn: number;
}
export interface TextItem {
  kind: 'thoughts' | 'response';
  id: string;
  text: string;
  done: boolean;
}
export interface ToolItem {
  kind: 'tool';
  id: string; // the correlation id
  name: string;
  call: ToolCallData | null;
  args: unknown;
  status: ToolStatus;
  output: string;
  /** Characters dropped from the start of output (beyond MAX_OUTPUT_CHARS). */
  dropped: number;
  lines: number;
  images: string[];
  result: string | null;
  /** The file an offloaded result was saved to, as the agent said in
   * ToolOutput's saved_path (never read from the text); "" when none. */
  savedPath: string;
  isError: boolean;
  /** The part of output that tells of the error ("" when none is told apart). */
  errorText: string;
  startedAt: number | null;
  endedAt: number | null;
  shell: ShellView[];
  input: InputView | null;
  /** The model's code, when the user edited it before it ran. */
  original: string | null;
  /** Set for a cell the user ran. */
  run: RunView | null;
  /** Set when a rule or grant allowed the call without asking. */
  approvedBy: Approval | null;
  /** The shell command or tool call the user rejected inside the cell. */
  rejected: string;
  /** The files the call changed (checkpoints on), or null. */
  changes: ChangesView | null;
  /** What an MCP server reported while the call ran, or null. */
  progress: ProgressView | null;
}

/** An MCP server's progress and log lines during a call (ToolProgress). */
export interface ProgressView {
  server: string;
  progress: number;
  /** 0: the server did not say. */
  total: number;
  message: string;
  /** The newest MAX_PROGRESS_LOGS lines. */
  logs: LogLine[];
  /** Log lines left out, by the backend or for MAX_PROGRESS_LOGS. */
  dropped: number;
}

/** How many log lines of a server a card keeps. */
export const MAX_PROGRESS_LOGS = 50;

/** Files a checkpointed action changed; revertedBy names the revert that
 * took them back ("" while they stand). */
export interface ChangesView {
  checkpoint: string;
  turnId: string;
  files: FileChange[];
  revertedBy: string;
  /** Files that revert left as they were (changed since, or too large to
   * have been kept): still as the action left them. */
  kept: string[];
  /** Recorded at the next start: freeact stopped while the action ran. */
  late: boolean;
}
export interface LaneItem {
  kind: 'lane';
  id: string; // the subagent's id
}
export interface UsageItem {
  kind: 'usage';
  id: string;
  input: number;
  output: number;
  thinking: number;
  model: string;
  /** US dollars of the turn's priced calls; null when none had a price. */
  cost: number | null;
}
export interface NoticeItem {
  kind: 'notice';
  id: string;
  /** info: about the session (checkpoints off); kernel: what happened to the kernel's state (restart, replay); cut: a reply cut at the output token limit. */
  level: 'cancelled' | 'failed' | 'retry' | 'info' | 'rejected' | 'kernel' | 'cut';
  text: string;
  /** Set on a failed turn: what failed and how to fix it. */
  failure?: Failure;
}

/** A hook blocked, changed or added context to a call. text is the
 * hook's own words: shown as plain text, never as markdown or a note. */
export interface HookItem {
  kind: 'hook';
  id: string;
  what: 'blocked' | 'changed' | 'context';
  event: string;
  tool: string;
  text: string;
  input: string;
  /** The correlation id of the call it concerns. */
  call: string;
}

/** A failed turn, as the failure card shows it. */
export interface Failure {
  /** api_key, model, session, or '' for anything else. */
  cause: string;
  summary: string;
  fix: string;
  error: string;
  keyEnv: string;
  status: number;
  /** The prompt of the failed turn, to send again. */
  prompt: string;
  images: string[];
  /** 'compact' when "Compact now" failed: Retry compacts again (and
   * sends no prompt); '' for a turn. */
  action: string;
  /** The turn failed after some of its actions ran, which stay: Retry
   * continues it (the prompt is not sent again, nothing runs twice). */
  kept: boolean;
}
/** Older turns summarised for the model; summary is null while it runs. */
export interface CompactionItem {
  kind: 'compaction';
  id: string;
  reason: string;
  messages: number;
  summary: string | null;
  tokensBefore: number;
  tokensAfter: number;
  /** It failed (the failure card after it says why). */
  failed?: boolean;
}
/** The files a turn changed, at its end. */
export interface TurnChangesItem {
  kind: 'changes';
  id: string;
  turnId: string;
  files: FileChange[];
  checkpoints: string[];
  revertedBy: string;
  /** Files that revert left as they were. */
  kept: string[];
}
/** A revert the user made; undoneBy names the revert that took it back. */
export interface RevertItem {
  kind: 'revert';
  id: string;
  checkpoint: string;
  reverts: string[];
  label: string;
  files: FileChange[];
  unrestorable: string[];
  /** Files changed since, left as they are (not forced). */
  kept: string[];
  undoneBy: string;
  /** It took back an earlier revert (the changes are back). */
  undoes: boolean;
}
/** The start of a session opened from a notebook; its cells follow. */
export interface NotebookItem {
  kind: 'notebook';
  id: string;
  path: string;
  cells: number;
}
/** A markdown cell of an opened notebook. */
export interface MarkdownCellItem {
  kind: 'nbmarkdown';
  id: string;
  text: string;
}
export type Item =
  | UserItem
  | TextItem
  | ToolItem
  | LaneItem
  | UsageItem
  | NoticeItem
  | HookItem
  | CompactionItem
  | TurnChangesItem
  | RevertItem
  | NotebookItem
  | MarkdownCellItem;

/** Where the session stands: its cost and the context's fill. */
export interface SessionMeter {
  cost: number;
  unpriced: number;
  budget: number | null;
  contextTokens: number;
  contextWindow: number;
  compactAt: number;
  /** Auto mode's judge: its priced cost (part of cost) and its calls. */
  judgeCost: number;
  judgeCalls: number;
}

/** A turn paused before a call that would pass the budget. */
export interface BudgetPending {
  requestId: string;
  agentId: string;
  spent: number;
  budget: number;
  estimate: number;
}

/** A model call waiting for MCP servers still connecting; Skip goes on
 * without them. */
export interface McpWaitPending {
  requestId: string;
  agentId: string;
  servers: string[];
  /** About the longest the wait lasts, seconds; 0 when not known. */
  limitSecs: number;
}

/** A replay restoring the kernel's state: its progress and outcome. */
export interface ReplayState {
  running: boolean;
  /** The cell running now (from 1), and the cells in all. */
  index: number;
  total: number;
  ran: number;
  failed: number;
  stopped: boolean;
  /** The ids of the replayed cells, whose output is not shown as items. */
  runs: string[];
}

export interface PendingApproval {
  requestId: string;
  agentId: string;
  correlationId: string;
  call: ToolCallData;
  display: string;
  suggested: string;
  /** Why it is asked although a rule allows calls like it; '' for none. */
  reason: string;
  /** Only yes or no can answer it (it changes the agent's permissions). */
  protected: boolean;
  /** Why no Always is offered (a tool its server marks destructive): yes,
   * no or Session answer it; '' when Always is offered. */
  noAlways: string;
}

export interface Lane {
  id: string;
  items: Item[];
  /** US dollars of the subagent's priced calls; null while none. */
  cost: number | null;
}

export interface ConversationState {
  items: Item[];
  lanes: Record<string, Lane>;
  /** Approval requests waiting for an answer, oldest first. */
  pending: PendingApproval[];
  running: boolean;
  usage: { input: number; output: number; thinking: number; model: string; cost: number | null };
  /** The files the running turn changed so far, by checkpoint. */
  turnChanges: ChangesView[];
  session: SessionMeter | null;
  budget: BudgetPending | null;
  /** A model call waiting for MCP servers, while it waits. */
  mcpWaiting: McpWaitPending | null;
  /** The grants of this conversation (rules its Session answers added). */
  grants: RuleData[];
  seq: number;
  /** The last replay, while it runs and after. */
  replay: ReplayState | null;
}

export function initialState(): ConversationState {
  return {
    items: [],
    lanes: {},
    pending: [],
    running: false,
    usage: zeroUsage(),
    turnChanges: [],
    session: null,
    budget: null,
    mcpWaiting: null,
    grants: [],
    seq: 0,
    replay: null,
  };
}

function zeroUsage() {
  return { input: 0, output: 0, thinking: 0, model: '', cost: null };
}

function itemsOf(s: ConversationState, agent: string): Item[] {
  return agent === MAIN ? s.items : (s.lanes[agent]?.items ?? []);
}

/** Returns s with agent's item list replaced; a new subagent gets a lane. */
function withItems(s: ConversationState, agent: string, items: Item[]): ConversationState {
  if (agent === MAIN) return { ...s, items };
  const lanes = { ...s.lanes, [agent]: { id: agent, items, cost: s.lanes[agent]?.cost ?? null } };
  if (s.lanes[agent]) return { ...s, lanes };
  return { ...s, lanes, items: [...s.items, { kind: 'lane', id: agent }] };
}

function nextId(s: ConversationState): [ConversationState, string] {
  const seq = s.seq + 1;
  return [{ ...s, seq }, `i${seq}`];
}

function push(s: ConversationState, agent: string, make: (id: string) => Item): ConversationState {
  const [s2, id] = nextId(s);
  return withItems(s2, agent, [...itemsOf(s2, agent), make(id)]);
}

function replaceAt(items: Item[], i: number, item: Item): Item[] {
  const out = items.slice();
  out[i] = item;
  return out;
}

function newTool(id: string, name: string): ToolItem {
  return {
    kind: 'tool',
    id,
    name,
    call: null,
    args: null,
    status: 'asking',
    output: '',
    dropped: 0,
    lines: 0,
    images: [],
    result: null,
    savedPath: '',
    isError: false,
    errorText: '',
    startedAt: null,
    endedAt: null,
    shell: [],
    input: null,
    original: null,
    run: null,
    changes: null,
    approvedBy: null,
    rejected: '',
    progress: null,
  };
}

function findTool(items: Item[], corr: string): number {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it?.kind === 'tool' && it.id === corr) return i;
  }
  return -1;
}

/** Applies f to the tool item corr of agent, creating it when missing. */
function updateTool(
  s: ConversationState,
  agent: string,
  corr: string,
  name: string,
  f: (t: ToolItem) => ToolItem,
): ConversationState {
  const items = itemsOf(s, agent);
  const i = findTool(items, corr);
  if (i < 0) return withItems(s, agent, [...items, f(newTool(corr, name))]);
  return withItems(s, agent, replaceAt(items, i, f(items[i] as ToolItem)));
}

/** Streams text into the last open thoughts/response item, or starts one.
 * A complete event (done) finishes the item of its kind in the current
 * model reply (the run of text items since the last call), its full text
 * winning over the chunks. */
function streamText(s: ConversationState, agent: string, kind: 'thoughts' | 'response', text: string, done: boolean) {
  let items = itemsOf(s, agent);
  const last = items.at(-1);
  if (kind === 'response' && last?.kind === 'thoughts' && !last.done) {
    items = replaceAt(items, items.length - 1, { ...last, done: true });
    s = withItems(s, agent, items);
  }
  if (done) {
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      if (!it || (it.kind !== 'thoughts' && it.kind !== 'response')) break;
      if (it.kind !== kind) continue;
      if (it.done && it.text === text) return s; // a repeated complete event
      if (it.done) break;
      return withItems(s, agent, replaceAt(items, i, { ...it, text, done: true }));
    }
    return push(s, agent, (id) => ({ kind, id, text, done: true }));
  }
  const cur = items.at(-1);
  if (cur && cur.kind === kind && !cur.done) {
    return withItems(s, agent, replaceAt(items, items.length - 1, { ...cur, text: cur.text + text }));
  }
  if (text === '') return s;
  return push(s, agent, (id) => ({ kind, id, text, done: false }));
}

function appendOutput(t: ToolItem, text: string): ToolItem {
  let output = t.output + text;
  let dropped = t.dropped;
  if (output.length > MAX_OUTPUT_CHARS) {
    const cut = output.length - MAX_OUTPUT_CHARS;
    output = output.slice(cut);
    dropped += cut;
  }
  let lines = t.lines;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  return { ...t, output, dropped, lines };
}

function findLastTool(items: Item[]): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]?.kind === 'tool') return i;
  return -1;
}

function isFinished(t: ToolItem): boolean {
  return t.status === 'done' || t.status === 'error' || t.status === 'rejected' || t.status === 'interrupted';
}

/** A cell the user started: a new run placed after the cell it runs again
 * (and that cell's earlier runs), a notebook cell run in place, or, for a
 * replay, progress only. */
function cellStarted(s: ConversationState, ev: Extract<AgentEvent, { type: 'CellStarted' }>, now: number): ConversationState {
  const agent = ev.agent_id || MAIN;
  const corr = ev.correlation_id ?? '';
  const of = ev.of ?? '';
  const run: RunView = { source: ev.source, of, index: ev.index, total: ev.total };
  if (ev.source === 'replay') {
    const prev = s.replay?.running ? s.replay : null;
    return {
      ...s,
      replay: {
        running: true,
        index: ev.index,
        total: ev.total,
        ran: prev?.ran ?? 0,
        failed: prev?.failed ?? 0,
        stopped: false,
        runs: [...(prev?.runs ?? []), corr],
      },
    };
  }
  const items = itemsOf(s, agent);
  const code = { type: 'CodeAction', tool_name: EXECUTE_TOOL, code: ev.code } as const;
  if (ev.source === 'notebook') {
    const i = items.findIndex((it) => it.kind === 'tool' && it.id === notebookCellId(of) && it.status === 'idle');
    if (i >= 0) {
      const t = items[i] as ToolItem;
      // Its time starts when it is approved, or with its first output.
      return withItems(s, agent, replaceAt(items, i, { ...t, id: corr, call: code, status: 'running', run, result: null }));
    }
  }
  const item: ToolItem = { ...newTool(corr, EXECUTE_TOOL), call: code, status: 'running', startedAt: now, run };
  let at = -1;
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    if (it?.kind === 'tool' && of !== '' && (it.id === of || it.run?.of === of)) at = i;
  }
  if (at < 0) return withItems(s, agent, [...items, item]);
  const out = items.slice();
  out.splice(at + 1, 0, item);
  return withItems(s, agent, out);
}

/** The item id of a notebook cell that has not run. */
export function notebookCellId(cellId: string): string {
  return `nb:${cellId}`;
}

/** The approval an ApprovalRequest asks for. */
function pendingOf(ev: Extract<AgentEvent, { type: 'ApprovalRequest' }>): PendingApproval {
  return {
    requestId: ev.request_id,
    agentId: ev.agent_id || MAIN,
    correlationId: ev.correlation_id ?? '',
    call: ev.tool_call,
    display: ev.display ?? '',
    suggested: ev.suggested_pattern,
    reason: ev.reason ?? '',
    protected: !!ev.protected,
    noAlways: ev.no_always ?? '',
  };
}

/** Events of a replayed cell update the replay's progress, not the items;
 * its approvals still wait for an answer. */
function replayEvent(s: ConversationState, ev: AgentEvent): ConversationState {
  if (ev.type === 'ApprovalRequest') {
    if (s.pending.some((p) => p.requestId === ev.request_id)) return s;
    return { ...s, pending: [...s.pending, pendingOf(ev)] };
  }
  if (ev.type === 'CodeExecutionOutput' && s.replay) {
    return { ...s, replay: { ...s.replay, ran: s.replay.ran + 1, failed: s.replay.failed + (ev.error ? 1 : 0) } };
  }
  return s;
}

/** Marks whatever is still open in a list as ended. */
function closeOpen(items: Item[], now: number): Item[] {
  let changed = false;
  const out = items.map((it): Item => {
    if ((it.kind === 'thoughts' || it.kind === 'response') && !it.done) {
      changed = true;
      return { ...it, done: true };
    }
    if (it.kind === 'tool' && !isFinished(it) && it.status !== 'idle') {
      changed = true;
      return { ...it, status: 'interrupted', endedAt: it.startedAt === null ? null : now };
    }
    return it;
  });
  return changed ? out : items;
}

/** Reduces one event. now is the time in ms (Date.now()). */
export function reduce(s: ConversationState, ev: AgentEvent, now: number): ConversationState {
  const agent = ev.agent_id || MAIN;
  const corr = ev.correlation_id ?? '';
  if (corr !== '' && s.replay?.runs.includes(corr) && ev.type !== 'CellStarted') return replayEvent(s, ev);
  switch (ev.type) {
    case 'Reset':
      return initialState();
    case 'Answered': {
      const d = ev.decision as Decision | undefined;
      if (d && ['yes', 'no', 'always', 'session'].includes(d)) return answered(s, ev.request_id, d, now);
      return mcpWaitSkipped(budgetAnswered(inputAnswered(s, ev.request_id, '(answered)'), ev.request_id), ev.request_id);
    }
    case 'TurnStarted':
      return { ...s, running: !ev.history, usage: zeroUsage() };
    case 'UserMessage':
      // How the last replay went is old news once the user goes on.
      if (s.replay && !s.replay.running) s = { ...s, replay: null };
      return push(s, MAIN, (id) => ({ kind: 'user', id, text: ev.text, images: ev.images ?? [], turn: ev.turn ?? 0 }));
    case 'ThoughtsChunk':
      return streamText(s, agent, 'thoughts', ev.text, false);
    case 'Thoughts':
      return streamText(s, agent, 'thoughts', ev.text, true);
    case 'ResponseChunk':
      return streamText(s, agent, 'response', ev.text, false);
    case 'Response':
      // The fixed answer that ends a turn after a rejection is the app's
      // word, not the model's.
      if (ev.text === REJECTED && !lastText(itemsOf(s, agent))) {
        return push(s, agent, (id) => ({ kind: 'notice', id, level: 'rejected', text: 'You rejected a call, so the turn ended. Send a message to go on.' }));
      }
      return streamText(s, agent, 'response', ev.text, true);
    case 'ApprovalRequest': {
      const call = ev.tool_call;
      if (s.pending.some((p) => p.requestId === ev.request_id)) return s;
      s = { ...s, pending: [...s.pending, pendingOf(ev)] };
      if (call.type === 'ShellAction') {
        const command = ev.display || call.command;
        return updateTool(s, agent, corr, EXECUTE_TOOL, (t) => ({
          ...t,
          shell: [...t.shell, { requestId: ev.request_id, command, call, status: 'asking', approvedBy: null }],
        }));
      }
      return updateTool(s, agent, corr, call.tool_name, (t) => ({
        ...t,
        name: call.tool_name,
        call,
        args: call.type === 'GenericCall' ? call.tool_args : t.args,
        // A cell the user started that asks first (a notebook cell) waits.
        status: t.status === 'asking' || (t.run !== null && t.output === '' && call.type === 'CodeAction') ? 'asking' : t.status,
      }));
    }
    case 'AutoApproved': {
      const approvedBy: Approval = { by: ev.by, rule: ev.rule ?? '', reason: ev.reason ?? '' };
      if (ev.history) {
        // A resumed call's badge, from its record: the call is shown
        // already (ToolCall, ToolOutput); nothing else is made of it.
        if (findTool(itemsOf(s, agent), corr) < 0) return s;
        return updateTool(s, agent, corr, EXECUTE_TOOL, (t) => ({ ...t, approvedBy: { ...approvedBy, resumed: true } }));
      }
      // A call that runs without asking shows like an approved one.
      const call = ev.tool_call;
      if (call.type === 'ShellAction') {
        const command = ev.display || call.command;
        return updateTool(s, agent, corr, EXECUTE_TOOL, (t) => ({
          ...t,
          shell: [...t.shell, { requestId: `auto-${t.shell.length}`, command, call, status: 'approved', approvedBy }],
        }));
      }
      return updateTool(s, agent, corr, call.tool_name, (t) => ({
        ...t,
        name: call.tool_name,
        call,
        args: call.type === 'GenericCall' ? call.tool_args : t.args,
        status: isFinished(t) ? t.status : 'running',
        startedAt: t.startedAt ?? now,
        approvedBy,
      }));
    }
    case 'SessionGrants':
      return { ...s, grants: ev.grants };
    case 'InputRequest':
      return updateTool(s, agent, corr, EXECUTE_TOOL, (t) => ({
        ...t,
        input: { requestId: ev.request_id, prompt: ev.prompt, password: !!ev.password, answer: null },
      }));
    case 'ToolProgress':
      return updateTool(s, agent, corr, ev.server, (t) => {
        if (isFinished(t)) return t; // a late one after the result
        const prev = t.progress;
        const sameServer = prev !== null && prev.server === ev.server;
        let logs = [...(sameServer ? prev.logs : []), ...(ev.logs ?? [])];
        let dropped = (sameServer ? prev.dropped : 0) + (ev.dropped ?? 0);
        if (logs.length > MAX_PROGRESS_LOGS) {
          dropped += logs.length - MAX_PROGRESS_LOGS;
          logs = logs.slice(-MAX_PROGRESS_LOGS);
        }
        return {
          ...t,
          progress: { server: ev.server, progress: ev.progress ?? 0, total: ev.total ?? 0, message: ev.message ?? '', logs, dropped },
        };
      });
    case 'CodeExecutionOutputChunk':
      return updateTool(s, agent, corr, EXECUTE_TOOL, (t) => {
        if (isFinished(t)) return t; // a chunk after the complete output
        const started = t.startedAt ?? now;
        if (ev.kind === 'image') {
          // The chunk names the saved file, as a markdown image or a bare path.
          const path = /!\[[^\]]*\]\(([^)\s]+)\)/.exec(ev.text)?.[1] ?? ev.text.trim();
          if (t.images.includes(path)) return t;
          return { ...t, status: 'running', startedAt: started, images: [...t.images, path] };
        }
        const next = appendOutput(t, ev.text);
        return {
          ...next,
          dropped: next.dropped + (ev.dropped_chars ?? 0),
          lines: next.lines + (ev.dropped_lines ?? 0),
          status: 'running',
          startedAt: started,
        };
      });
    case 'CodeExecutionOutput':
      return updateTool(s, agent, corr, EXECUTE_TOOL, (t) => {
        const full = ev.text.length > MAX_OUTPUT_CHARS ? ev.text.slice(ev.text.length - MAX_OUTPUT_CHARS) : ev.text;
        let lines = 0;
        for (let i = full.indexOf('\n'); i >= 0; i = full.indexOf('\n', i + 1)) lines++;
        return {
          ...t,
          output: full,
          dropped: ev.text.length - full.length + (ev.dropped_chars ?? 0),
          lines: Math.max(lines + (ev.dropped_lines ?? 0), t.lines),
          images: ev.images && ev.images.length > 0 ? ev.images : t.images,
          status: ev.rejected ? 'rejected' : ev.error ? 'error' : 'done',
          isError: !!ev.error,
          errorText: ev.error_text ?? '',
          rejected: ev.rejected ?? '',
          endedAt: now,
          // A resumed session's cell brings the time it ran.
          startedAt: ev.elapsed_ms ? now - ev.elapsed_ms : (t.startedAt ?? now),
        };
      });
    case 'ToolOutput': {
      // A resumed session has no answers: a rejected call's result says it.
      const refused = !!ev.is_error && (ev.content === REJECTED || ev.content.endsWith('\n' + REJECTED));
      return updateTool(s, agent, corr, ev.tool_name, (t) => {
        const endedAt = t.endedAt ?? now;
        return {
          ...t,
          result: ev.content,
          savedPath: ev.saved_path ?? '',
          isError: t.isError || !!ev.is_error,
          status: t.status === 'rejected' || refused ? 'rejected' : ev.is_error ? 'error' : 'done',
          endedAt,
          // The agent's time of the run, which the session keeps: the
          // same live and in a resumed session.
          startedAt: ev.elapsed_ms ? endedAt - ev.elapsed_ms : t.startedAt,
        };
      });
    }
    case 'ToolCall':
      return updateTool(s, agent, corr, ev.tool_name, (t) => ({
        ...t,
        name: ev.tool_name,
        args: ev.args,
        call: callFromArgs(ev.tool_name, ev.args),
        status: 'done',
      }));
    case 'Usage': {
      const cost = ev.cost ?? null;
      s = {
        ...s,
        usage: {
          input: s.usage.input + ev.input_tokens,
          output: s.usage.output + ev.output_tokens,
          thinking: s.usage.thinking + ev.thinking_tokens,
          model: ev.model || s.usage.model,
          cost: addCost(s.usage.cost, cost),
        },
      };
      const lane = s.lanes[agent];
      if (agent === MAIN || !lane || cost === null) return s;
      return { ...s, lanes: { ...s.lanes, [agent]: { ...lane, cost: addCost(lane.cost, cost) } } };
    }
    case 'SessionUsage':
      return {
        ...s,
        session: {
          cost: ev.cost,
          unpriced: ev.unpriced_calls,
          budget: ev.budget,
          contextTokens: ev.context_tokens,
          contextWindow: ev.context_window,
          compactAt: ev.compact_at,
          judgeCost: ev.judge_cost ?? 0,
          judgeCalls: ev.judge_calls ?? 0,
        },
      };
    case 'BudgetRequest':
      return {
        ...s,
        budget: { requestId: ev.request_id, agentId: agent, spent: ev.spent, budget: ev.budget, estimate: ev.estimate },
      };
    case 'MCPWaiting': {
      if (ev.done || !ev.request_id) {
        const out = s.mcpWaiting?.agentId === agent ? { ...s, mcpWaiting: null } : s;
        if (!ev.skipped) return out;
        // The conversation keeps that the call went on without them.
        const many = ev.servers.length > 1;
        const text =
          `Went on without MCP server${many ? 's' : ''} ${ev.servers.join(', ')}; ` +
          `${many ? 'their' : 'its'} tools join once connected.`;
        return push(out, agent, (id) => ({ kind: 'notice', id, level: 'info', text }));
      }
      return {
        ...s,
        mcpWaiting: { requestId: ev.request_id, agentId: agent, servers: ev.servers, limitSecs: ev.limit_secs ?? 0 },
      };
    }
    case 'Compacting':
      return push(s, agent, (id) => ({
        kind: 'compaction',
        id,
        reason: ev.reason,
        messages: ev.messages,
        summary: null,
        tokensBefore: 0,
        tokensAfter: 0,
      }));
    case 'Compacted': {
      const done = (id: string): CompactionItem => ({
        kind: 'compaction',
        id,
        reason: ev.reason,
        messages: ev.messages,
        summary: ev.summary,
        tokensBefore: ev.tokens_before,
        tokensAfter: ev.tokens_after,
      });
      const items = itemsOf(s, agent);
      for (let i = items.length - 1; i >= 0; i--) {
        const it = items[i]!;
        if (it.kind === 'compaction' && it.summary === null) return withItems(s, agent, replaceAt(items, i, done(it.id)));
      }
      return push(s, agent, done);
    }
    case 'FilesChanged': {
      const changes: ChangesView = {
        checkpoint: ev.checkpoint,
        turnId: ev.turn_id,
        files: ev.files,
        revertedBy: ev.reverted_by ?? '',
        kept: [],
        late: ev.late ?? false,
      };
      s = { ...s, turnChanges: [...s.turnChanges, changes] };
      return updateTool(s, agent, corr, EXECUTE_TOOL, (t) => ({ ...t, changes }));
    }
    case 'Reverted': {
      const undoes = s.items.some((it) => it.kind === 'revert' && ev.reverts.includes(it.checkpoint));
      s = markReverted(s, ev.checkpoint, ev.reverts, [...(ev.kept ?? []), ...(ev.unrestorable ?? [])]);
      return push(s, MAIN, (id) => ({
        kind: 'revert',
        id,
        checkpoint: ev.checkpoint,
        reverts: ev.reverts,
        label: ev.label,
        files: ev.files,
        unrestorable: ev.unrestorable ?? [],
        kept: ev.kept ?? [],
        undoneBy: '',
        undoes,
      }));
    }
    case 'Notice':
      return push(s, agent, (id) => ({ kind: 'notice', id, level: 'info', text: ev.text }));
    case 'HookNote':
      return push(s, agent, (id) => ({
        kind: 'hook',
        id,
        what: ev.kind,
        event: ev.event,
        tool: ev.tool,
        text: ev.text,
        input: ev.input ?? '',
        call: ev.correlation_id ?? '',
      }));
    case 'ReplyCut':
      return push(s, agent, (id) => ({ kind: 'notice', id, level: 'cut', text: ev.text }));
    case 'ModelRetry':
      return push(s, agent, (id) => ({
        kind: 'notice',
        id,
        level: 'retry',
        text: `The model call failed (${ev.reason}); retry ${ev.attempt} of ${ev.max_retries} in ${ev.delay_seconds.toFixed(0)} s`,
      }));
    case 'Cancelled': {
      let items = itemsOf(s, agent);
      // The interrupted cell ends with an error (KeyboardInterrupt) just
      // before the Cancelled event: it was interrupted, not broken.
      const last = findLastTool(items);
      if (last >= 0 && (items[last] as ToolItem).status === 'error' && ev.phase === 'tool_execution') {
        items = replaceAt(items, last, { ...(items[last] as ToolItem), status: 'interrupted' });
      }
      s = withItems(s, agent, closeOpen(items, now));
      const phase = ev.phase.replace(/_/g, ' ');
      return push(s, agent, (id) => ({ kind: 'notice', id, level: 'cancelled', text: `Cancelled (${phase})` }));
    }
    case 'Failed': {
      // A subagent's failure, and a failed compaction, have no prompt of
      // the user's to send again.
      const action = ev.action ?? '';
      const user = agent === MAIN && action === '' ? lastUser(s.items) : undefined;
      if (action === 'compact') s = withItems(s, agent, endCompaction(itemsOf(s, agent)));
      const failure: Failure = {
        cause: ev.cause ?? '',
        summary: ev.summary ?? '',
        fix: ev.fix ?? '',
        error: ev.error,
        keyEnv: ev.key_env ?? '',
        status: ev.status ?? 0,
        prompt: user?.text ?? '',
        images: user?.images ?? [],
        action,
        kept: ev.kept ?? false,
      };
      return push(s, agent, (id) => ({ kind: 'notice', id, level: 'failed', text: ev.summary || ev.error, failure }));
    }
    case 'CodeEdited':
      return updateTool(s, agent, corr, EXECUTE_TOOL, (t) => ({
        ...t,
        original: t.original ?? (t.call?.type === 'CodeAction' ? t.call.code : null),
        call: { type: 'CodeAction', tool_name: EXECUTE_TOOL, code: ev.code },
      }));
    case 'CellStarted':
      return cellStarted(s, ev, now);
    case 'CellsFinished':
      if (ev.source !== 'replay') return s;
      return {
        ...s,
        replay: {
          running: false,
          index: s.replay?.index ?? ev.ran,
          total: ev.total,
          ran: ev.ran,
          failed: ev.failed,
          stopped: !!ev.stopped,
          runs: s.replay?.runs ?? [],
        },
      };
    case 'KernelStateNote':
      return push(s, agent, (id) => ({ kind: 'notice', id, level: 'kernel', text: ev.text }));
    case 'NotebookOpened': {
      s = push(s, agent, (id) => ({ kind: 'notebook', id, path: ev.path, cells: ev.cells.length }));
      for (const c of ev.cells) {
        if (c.type === 'markdown') {
          s = push(s, agent, (id) => ({ kind: 'nbmarkdown', id, text: c.source }));
          continue;
        }
        if (c.type !== 'code') continue;
        const t: ToolItem = {
          ...newTool(notebookCellId(c.id), EXECUTE_TOOL),
          call: { type: 'CodeAction', tool_name: EXECUTE_TOOL, code: c.source },
          status: 'idle',
          result: c.output ?? null,
        };
        s = withItems(s, agent, [...itemsOf(s, agent), t]);
      }
      return s;
    }
    case 'TurnEnded': {
      let out: ConversationState = { ...s, running: false, pending: [], budget: null, mcpWaiting: null };
      out = withItems(out, MAIN, closeOpen(out.items, now));
      for (const [id, lane] of Object.entries(out.lanes)) out = withItems(out, id, closeOpen(lane.items, now));
      const turn = turnChanges(s.turnChanges);
      if (turn) out = push(out, MAIN, (id) => ({ ...turn, id }));
      const u = s.usage;
      if (u.input + u.output + u.thinking > 0) {
        out = push(out, MAIN, (id) => ({ kind: 'usage', id, ...u }));
      }
      return { ...out, usage: zeroUsage(), turnChanges: [] };
    }
  }
  return s;
}

function addCost(a: number | null, b: number | null): number | null {
  if (b === null) return a;
  return (a ?? 0) + b;
}

/** What one file went through over several changes, seen from before the
 * first: a file added and then deleted did not change. */
function combine(a: FileChange, b: FileChange): FileChange | null {
  let status: FileChange['status'] = b.status;
  if (a.status === 'added' && b.status === 'deleted') return null;
  if (a.status === 'added') status = 'added';
  else if (a.status === 'deleted' && b.status === 'added') status = 'modified';
  return {
    path: a.path,
    status,
    binary: a.binary || b.binary,
    large: a.large || b.large,
    added: a.added + b.added,
    removed: a.removed + b.removed,
  };
}

/** The turn's changes as one item, or null when it changed nothing. */
function turnChanges(changes: ChangesView[]): Omit<TurnChangesItem, 'id'> | null {
  if (changes.length === 0) return null;
  const byPath = new Map<string, FileChange | null>();
  for (const c of changes) {
    for (const f of c.files) {
      const prev = byPath.get(f.path);
      byPath.set(f.path, prev ? combine(prev, f) : prev === null ? { ...f, status: f.status === 'deleted' ? 'deleted' : 'added' } : f);
    }
  }
  const files = [...byPath.values()].filter((f): f is FileChange => f !== null).sort((a, b) => a.path.localeCompare(b.path));
  const revertedBy = changes.every((c) => c.revertedBy !== '' && c.revertedBy === changes[0]!.revertedBy)
    ? changes[0]!.revertedBy
    : '';
  return {
    kind: 'changes',
    turnId: changes[0]!.turnId,
    files,
    checkpoints: changes.map((c) => c.checkpoint),
    revertedBy,
    kept: revertedBy ? [...new Set(changes.flatMap((c) => c.kept))] : [],
  };
}

/** Marks what a revert took back, and un-marks what a revert it undid had
 * taken back; left are the files the revert left as they were. */
function markReverted(s: ConversationState, by: string, reverts: string[], left: string[]): ConversationState {
  const taken = new Set(reverts);
  // Reverts this one undoes: what they had reverted stands again.
  const undone = new Set<string>();
  const mark = (items: Item[]): Item[] => {
    for (const it of items) if (it.kind === 'revert' && taken.has(it.checkpoint)) undone.add(it.checkpoint);
    let changed = false;
    const out = items.map((it): Item => {
      if (it.kind === 'tool' && it.changes) {
        const c = it.changes;
        const revertedBy = taken.has(c.checkpoint) ? by : undone.has(c.revertedBy) ? '' : c.revertedBy;
        if (revertedBy !== c.revertedBy) {
          changed = true;
          return { ...it, changes: { ...c, revertedBy, kept: revertedBy === by ? left : [] } };
        }
      }
      if (it.kind === 'changes') {
        const revertedBy = it.checkpoints.every((c) => taken.has(c)) ? by : undone.has(it.revertedBy) ? '' : it.revertedBy;
        if (revertedBy !== it.revertedBy) {
          changed = true;
          return { ...it, revertedBy, kept: revertedBy === by ? left : [] };
        }
      }
      if (it.kind === 'revert' && taken.has(it.checkpoint) && it.undoneBy !== by) {
        changed = true;
        return { ...it, undoneBy: by };
      }
      return it;
    });
    return changed ? out : items;
  };
  let out = withItems(s, MAIN, mark(s.items));
  for (const [id, lane] of Object.entries(out.lanes)) out = withItems(out, id, mark(lane.items));
  return out;
}

/** Whether the list ends with an unfinished text of the model's. */
function lastText(items: Item[]): boolean {
  const it = items.at(-1);
  return (it?.kind === 'response' || it?.kind === 'thoughts') && !it.done;
}

function lastUser(items: Item[]): UserItem | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it?.kind === 'user') return it;
  }
  return undefined;
}

/** The failure that ended the conversation so far, if its last turn
 * failed (no prompt came after it). */
export function openFailure(items: Item[]): (NoticeItem & { failure: Failure }) | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it?.kind === 'user') return undefined;
    if (it?.kind === 'notice' && it.failure) return it as NoticeItem & { failure: Failure };
  }
  return undefined;
}

/** The running compaction, if any, marked failed: its spinner stops. */
function endCompaction(items: Item[]): Item[] {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]!;
    if (it.kind === 'compaction' && it.summary === null && !it.failed) return replaceAt(items, i, { ...it, failed: true });
  }
  return items;
}

/** Before "Compact now" is tried again: drops the failed compaction and
 * its failure card (the retry shows its own). */
export function withoutFailedCompaction(s: ConversationState): ConversationState {
  const items = s.items.filter(
    (it) => !(it.kind === 'compaction' && it.failed) && !(it.kind === 'notice' && it.failure?.action === 'compact'),
  );
  return { ...s, items };
}

/** Drops the last turn when it failed (its prompt and the failure), before
 * its prompt is sent again: the agent kept nothing of it either. */
export function withoutFailedTurn(s: ConversationState): ConversationState {
  let i = s.items.length - 1;
  while (i >= 0 && s.items[i]?.kind !== 'user') i--;
  if (i < 0) return s;
  const turn = s.items.slice(i + 1);
  const failed = turn.some((it) => it.kind === 'notice' && it.failure !== undefined);
  // Calls that ran stay in view: what they did happened.
  if (!failed || turn.some((it) => it.kind === 'tool' || it.kind === 'lane')) return s;
  return { ...s, items: s.items.slice(0, i) };
}

/** Once a kept failed turn is continued: its failure (the notice id)
 * stays in view as what happened, without the card's Retry; the
 * continuation shows its own failure if it fails again. */
export function withFailureContinued(s: ConversationState, id: string): ConversationState {
  return {
    ...s,
    items: s.items.map((it) => (it.id === id && it.kind === 'notice' && it.failure?.kept ? { ...it, failure: undefined } : it)),
  };
}

/** The grants of this conversation after a revocation or a refresh. */
export function withGrants(s: ConversationState, grants: RuleData[]): ConversationState {
  return { ...s, grants };
}

/** The typed call of a tool call from history, for built-in tools. */
function callFromArgs(name: string, args: unknown): ToolCallData {
  const a = (args && typeof args === 'object' ? args : {}) as Record<string, unknown>;
  const str = (k: string) => (typeof a[k] === 'string' ? (a[k] as string) : '');
  if (name === EXECUTE_TOOL) return { type: 'CodeAction', tool_name: name, code: str('code') };
  if (name === 'filesystem_read_text_file' || name === 'filesystem_read_media_file')
    return { type: 'FileRead', tool_name: name, path: str('path') };
  if (name === 'filesystem_write_text_file')
    return { type: 'FileWrite', tool_name: name, path: str('path'), content: str('content') };
  if (name === 'filesystem_edit_text_file')
    return { type: 'FileEdit', tool_name: name, path: str('path'), old_text: str('old_text'), new_text: str('new_text') };
  return { type: 'GenericCall', tool_name: name, tool_args: args };
}

export type Decision = 'yes' | 'no' | 'always' | 'session' | 'never';

/** Records the user's answer: the request leaves the queue and its call
 * shows the outcome. */
export function answered(s: ConversationState, requestId: string, d: Decision, now: number): ConversationState {
  const req = s.pending.find((p) => p.requestId === requestId);
  if (!req) return s;
  s = { ...s, pending: s.pending.filter((p) => p.requestId !== requestId) };
  const ok = d !== 'no' && d !== 'never';
  if (req.call.type === 'ShellAction') {
    return updateTool(s, req.agentId, req.correlationId, EXECUTE_TOOL, (t) => ({
      ...t,
      shell: t.shell.map((sh) => (sh.requestId === requestId ? { ...sh, status: ok ? 'approved' : 'rejected' } : sh)),
    }));
  }
  return updateTool(s, req.agentId, req.correlationId, req.call.tool_name, (t) => ({
    ...t,
    status: ok ? 'running' : 'rejected',
    startedAt: ok ? now : t.startedAt,
    endedAt: ok ? null : now,
  }));
}

/** Records the answer to a budget request. */
/** Forgets the wait for MCP servers once Skip answered it. */
export function mcpWaitSkipped(s: ConversationState, requestId: string): ConversationState {
  return s.mcpWaiting?.requestId === requestId ? { ...s, mcpWaiting: null } : s;
}

export function budgetAnswered(s: ConversationState, requestId: string): ConversationState {
  return s.budget?.requestId === requestId ? { ...s, budget: null } : s;
}

/** Records the answer to a cell's input(). */
export function inputAnswered(s: ConversationState, requestId: string, text: string): ConversationState {
  const find = (items: Item[]) => items.findIndex((it) => it.kind === 'tool' && it.input?.requestId === requestId);
  for (const agent of [MAIN, ...Object.keys(s.lanes)]) {
    const items = itemsOf(s, agent);
    const i = find(items);
    if (i >= 0) {
      const t = items[i] as ToolItem;
      return withItems(s, agent, replaceAt(items, i, { ...t, input: { ...t.input!, answer: text } }));
    }
  }
  return s;
}
