// The events the Go side sends (EventAgent batches): agent.MarshalEvent's
// JSON plus the app's own markers. Field names are the Go JSON names.

export interface Meta {
  agent_id: string;
  correlation_id?: string;
}

export type ToolCallData =
  | { type: 'CodeAction'; tool_name: string; code: string }
  | { type: 'ShellAction'; tool_name: string; command: string; interpreter?: string; opaque?: boolean }
  | { type: 'GenericCall'; tool_name: string; tool_args: unknown; ptc?: boolean; hints?: ToolHints; server?: string }
  | { type: 'FileRead'; tool_name: string; path: string }
  | { type: 'FileWrite'; tool_name: string; path: string; content: string }
  | { type: 'FileEdit'; tool_name: string; path: string; old_text: string; new_text: string };

/** An MCP tool's annotations, as Go's mcp.Hints encodes them: the server's word, never trusted. */
export interface ToolHints {
  title?: string;
  read_only?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  open_world?: boolean;
}

/** A log message of an MCP server (notifications/message). */
export interface LogLine {
  level: string;
  message: string;
  /** Bytes left out of message, which says so at its end. */
  clipped?: number;
}

/** A permission rule, as Go's permission.Rule encodes it. */
export interface RuleData {
  type: string;
  tool_name: string;
  command?: string;
  path?: string;
}

/** Who let a call run without asking (AutoApproved.by). */
export type ApprovedBy = 'rule' | 'session' | 'skip' | 'hook' | 'sandbox' | 'read_only' | 'judge';

export interface UsageFields {
  input_tokens: number;
  output_tokens: number;
  thinking_tokens: number;
  cached_tokens?: number;
}

/** Who runs a cell the user started: again, from a notebook, to restore state. */
export type CellSource = 'rerun' | 'notebook' | 'replay';

export interface NotebookCell {
  id: string;
  type: 'markdown' | 'code';
  source: string;
  /** The text the cell had when the notebook was saved. */
  output?: string;
}

/** A file a checkpointed action (or a revert) changed. */
export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  binary?: boolean;
  /** Above checkpoint_max_file_bytes: listed, not kept, not revertable. */
  large?: boolean;
  added: number;
  removed: number;
}

export type AgentEvent =
  | (Meta & { type: 'ThoughtsChunk' | 'Thoughts' | 'ResponseChunk' | 'Response'; text: string })
  | (Meta & {
      type: 'ApprovalRequest';
      request_id: string;
      tool_call: ToolCallData;
      display?: string;
      suggested_pattern: string;
      /** Why the call is asked although a rule allows calls like it, or why it is protected. */
      reason?: string;
      /** The call changes what the agent may do without asking: yes or no only. */
      protected?: boolean;
      /** Why no lasting rule is offered (the server marks the tool destructive): once or Session only. */
      no_always?: string;
      /** Auto mode sent the call to the user: the judge asks, failed (not a denial) or is paused. */
      judge?: 'ask' | 'failed' | 'paused';
    })
  | (Meta & {
      type: 'AutoApproved';
      tool_call: ToolCallData;
      display?: string;
      by: ApprovedBy;
      /** The pattern of the rule or grant that allowed the call. */
      rule?: string;
      /** Auto mode's judge's reason (by "judge"). */
      reason?: string;
      history?: false;
    })
  | (Meta & {
      /** A resumed call's badge, from its record: the call ran before
       * (its ToolCall and ToolOutput name it by id). */
      type: 'AutoApproved';
      history: true;
      by: ApprovedBy;
      rule?: string;
      reason?: string;
    })
  | (Meta & { type: 'SessionGrants'; grants: RuleData[] })
  | (Meta & { type: 'InputRequest'; request_id: string; prompt: string; password?: boolean })
  | (Meta & {
      type: 'ToolProgress';
      server: string;
      progress?: number;
      total?: number;
      message?: string;
      /** Bytes left out of message, which says so at its end. */
      clipped?: number;
      logs?: LogLine[];
      /** Older log lines left out of this event. */
      dropped?: number;
    })
  | (Meta & {
      type: 'CodeExecutionOutputChunk';
      kind: string;
      text: string;
      /** Output the app left out of a flood (it sends the tail). */
      dropped_chars?: number;
      dropped_lines?: number;
    })
  | (Meta & {
      type: 'CodeExecutionOutput';
      text: string;
      images: string[] | null;
      error?: boolean;
      /** The part of text that tells of the error (a traceback, the kernel's death), shown apart from the output. */
      error_text?: string;
      /** The shell command or tool call the user rejected; the cell stopped there. */
      rejected?: string;
      /** Characters the app left out at the front (it sends the tail). */
      dropped_chars?: number;
      dropped_lines?: number;
      /** How long the cell ran, from a resumed session's record. */
      elapsed_ms?: number;
    })
  | (Meta & {
      type: 'ToolOutput';
      tool_name: string;
      content: string;
      is_error?: boolean;
      elapsed_ms?: number;
      /** The file the whole result was saved to (offloaded), relative to the workspace. */
      saved_path?: string;
    })
  | (Meta & { type: 'Usage'; model: string; cost?: number | null; judge?: boolean } & UsageFields)
  | (Meta & {
      type: 'SessionUsage';
      cost: number;
      unpriced_calls: number;
      budget: number | null;
      context_tokens: number;
      context_window: number;
      compact_at: number;
      /** Auto mode's judge's calls: their priced cost (part of cost) and how many. */
      judge_cost?: number;
      judge_calls?: number;
    })
  | (Meta & { type: 'BudgetRequest'; request_id: string; spent: number; budget: number; estimate: number })
  | (Meta & {
      type: 'MCPWaiting';
      /** Set while it waits (not on the event with done). */
      request_id?: string;
      servers: string[];
      limit_secs?: number;
      done?: boolean;
      skipped?: boolean;
    })
  | (Meta & { type: 'Compacting'; reason: string; messages: number })
  | (Meta & {
      type: 'Compacted';
      reason: string;
      summary: string;
      messages: number;
      tokens_before: number;
      tokens_after: number;
    })
  | (Meta & { type: 'FilesChanged'; checkpoint: string; turn_id: string; files: FileChange[]; reverted_by?: string; late?: boolean })
  | (Meta & {
      type: 'Reverted';
      checkpoint: string;
      reverts: string[];
      label: string;
      files: FileChange[];
      unrestorable?: string[];
      /** Files changed since that the revert left as they are. */
      kept?: string[];
    })
  | (Meta & { type: 'Notice'; text: string })
  | (Meta & {
      type: 'HookNote';
      /** blocked, changed (the input) or context (added for the model). */
      kind: 'blocked' | 'changed' | 'context';
      /** The hook event: PreToolUse, PostToolUse... */
      event: string;
      /** The call as hooks name it: Bash, Write, mcp__server__tool, PythonCell. */
      tool: string;
      /** The hooks' own words: shown as plain text only. */
      text: string;
      /** For changed: the input the call runs with, as JSON. */
      input?: string;
    })
  | (Meta & {
      type: 'ReplyCut';
      text: string;
      output_tokens?: number;
      max_tokens?: number;
      setting: string;
      dropped?: string[];
    })
  | (Meta & { type: 'ModelRetry'; attempt: number; max_retries: number; delay_seconds: number; reason: string })
  | (Meta & { type: 'Cancelled'; phase: string })
  | (Meta & {
      type: 'Failed';
      error: string;
      /** What failed: api_key, model, session or other. */
      cause?: string;
      summary?: string;
      fix?: string;
      key_env?: string;
      /** The provider's HTTP status for cause model; 0 or absent when not reached. */
      status?: number;
      /** The turn failed after actions ran: it stays in the session, with a note to the model. */
      kept?: boolean;
      /** What failed when not a turn: 'compact' for "Compact now". */
      action?: string;
    })
  /** The user edited a code action before approving it: code runs instead. */
  | (Meta & { type: 'CodeEdited'; code: string })
  /** A cell the user runs (not the model); its output follows under its id. */
  | (Meta & { type: 'CellStarted'; code: string; source: CellSource; of?: string; index: number; total: number })
  | (Meta & { type: 'CellsFinished'; source: CellSource; ran: number; failed: number; total: number; stopped?: boolean })
  /** What the conversation now records about the kernel's state. */
  | (Meta & { type: 'KernelStateNote'; event: string; text: string })
  // The app's own events.
  | (Meta & { type: 'NotebookOpened'; path: string; cells: NotebookCell[] })
  | (Meta & { type: 'UserMessage'; text: string; images?: string[]; turn?: number })
  | (Meta & { type: 'ToolCall'; tool_name: string; args: unknown })
  | (Meta & { type: 'TurnStarted' | 'TurnEnded'; history?: boolean })
  | (Meta & { type: 'Reset' })
  /** A request answered in this window before (a conversation shown
   * again after running out of view): it is not asked again. decision is
   * set for an approval. */
  | (Meta & { type: 'Answered'; request_id: string; decision?: string });

export const MAIN = 'main';
export const EXECUTE_TOOL = 'ipybox_execute_ipython_cell';
export const REJECTED = 'Tool call rejected';
