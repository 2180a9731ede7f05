// The Go ↔ TypeScript event contract. app/desktop/testdata/events.json is written
// by the Go side (go test ./app -run TestEventContractGolden -update): one
// object per event the window receives, every field set, exactly as sent.
// Every entry must change the conversation state, and so must a change to
// any of its fields, unless the field is listed below as one the window
// does not use. A field renamed or added on either side fails here.
import { describe, expect, it } from 'vitest';
import contract from '../../../../app/desktop/testdata/events.json';
import type { AgentEvent } from './events';
import { initialState, reduce, type ConversationState } from './reducer';

// JSON gives its strings the type string, not the literal types of the
// event union; the test below checks what the types cannot.
const golden = contract as unknown as AgentEvent[];

/** Fields the reducer does not read, by event type, with the reason. */
const unused: Partial<Record<AgentEvent['type'], string[]>> = {
  // Text items belong to an agent's reply, not to a tool call.
  ThoughtsChunk: ['correlation_id'],
  Thoughts: ['correlation_id'],
  ResponseChunk: ['correlation_id'],
  Response: ['correlation_id'],
  // stdout and stderr show alike; only "image" chunks are told apart.
  CodeExecutionOutputChunk: ['kind'],
  // Tokens count for the turn as a whole.
  Usage: ['agent_id', 'correlation_id', 'cached_tokens', 'judge'],
  // The window learns of a judge's label from the approval mode it reads
  // again when one arrives, not from this field.
  ApprovalRequest: ['judge'],
  ModelRetry: ['correlation_id'],
  // The session's figures are the main conversation's, whoever reported them.
  SessionUsage: ['agent_id', 'correlation_id'],
  // A wait for MCP servers is before a model call, not in a call; once it
  // ended, its request and limit are moot.
  MCPWaiting: ['correlation_id', 'request_id', 'limit_secs'],
  // A budget belongs to the session, not to a call.
  BudgetRequest: ['correlation_id'],
  Compacting: ['correlation_id'],
  Compacted: ['correlation_id'],
  Notice: ['correlation_id'],
  // The text says it all: the tokens, the setting and the calls not run.
  ReplyCut: ['correlation_id', 'output_tokens', 'max_tokens', 'setting', 'dropped'],
  // The user reverts in the main conversation, outside any call.
  Reverted: ['agent_id', 'correlation_id'],
  Cancelled: ['correlation_id'],
  Failed: ['correlation_id'],
  // A replay restores the main agent's kernel; its progress is one state.
  CellsFinished: ['agent_id', 'correlation_id'],
  // The note's text says what happened.
  KernelStateNote: ['correlation_id', 'event'],
  // The message ends saying how many bytes were clipped; the count is
  // for programs.
  ToolProgress: ['clipped'],
  // Grants belong to the conversation, whichever agent added them.
  SessionGrants: ['agent_id', 'correlation_id'],
  // The app's own events concern the whole conversation.
  UserMessage: ['agent_id'],
  TurnStarted: ['agent_id'],
  TurnEnded: ['agent_id', 'history'],
  Reset: ['agent_id'],
};

const NOW = 5000;

/** A conversation under way, which every entry is reduced onto. */
function before(): ConversationState {
  let s = initialState();
  for (const ev of [
    { type: 'TurnStarted', agent_id: 'main' },
    { type: 'UserMessage', agent_id: 'main', text: 'the first prompt' },
  ] as AgentEvent[])
    s = reduce(s, ev, 1000);
  return s;
}

type Leaf = { path: (string | number)[]; value: string | number | boolean };

/** The leaf values of an event, by path, leaving out its type. */
function leaves(v: unknown, path: (string | number)[] = []): Leaf[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, [...path, i]));
  if (v !== null && typeof v === 'object') {
    return Object.entries(v).flatMap(([k, x]) => (path.length === 0 && k === 'type' ? [] : leaves(x, [...path, k])));
  }
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return [{ path, value: v }];
  throw new Error(`unexpected value at ${path.join('.')}: ${String(v)}`);
}

/** A copy of ev with the leaf at path changed. */
function mutate(ev: AgentEvent, { path, value }: Leaf): AgentEvent {
  const copy = structuredClone(ev) as unknown as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const changed = typeof value === 'string' ? value + '~' : typeof value === 'number' ? value + 1 : !value;
  node[path.at(-1)!] = changed;
  return copy as unknown as AgentEvent;
}

function label(ev: AgentEvent): string {
  return ev.type === 'ApprovalRequest' ? `ApprovalRequest/${ev.tool_call.type}` : ev.type;
}

describe('the Go event contract (app/desktop/testdata/events.json)', () => {
  it('has one entry per event type the reducer knows', () => {
    const types = new Set(golden.map((ev) => ev.type));
    expect(types.size).toBeGreaterThanOrEqual(18);
    for (const t of Object.keys(unused)) expect(types, `unused lists ${t}, which Go does not send`).toContain(t);
  });

  for (const ev of golden) {
    it(`reduces ${label(ev)} and reads its fields`, () => {
      const s = before();
      const after = reduce(s, ev, NOW);
      expect(after, 'the event changed nothing: is its type known?').not.toEqual(s);
      const skip = unused[ev.type] ?? [];
      for (const leaf of leaves(ev)) {
        const field = leaf.path.filter((p) => typeof p === 'string').join('.');
        const read = !skip.includes(field);
        const changed = reduce(s, mutate(ev, leaf), NOW);
        const what = `${label(ev)}.${leaf.path.join('.')}`;
        if (read) expect(changed, `${what} is not read by the reducer (list it in unused if that is meant)`).not.toEqual(after);
        else expect(changed, `${what} is listed as unused but the reducer reads it`).toEqual(after);
      }
    });
  }
});
