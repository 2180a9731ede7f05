// The only door from the UI to the Go backend: every call goes through the
// bindings Wails generates from package app/desktop (src/wailsjs, made by
// `make bindings`). Errors come back as Error objects with the Go message.
import * as Desktop from '../wailsjs/go/desktop/Desktop';
import * as Runtime from '../wailsjs/runtime/runtime';
import type { adapter, bounds, checkpoint, config, desktop, kernel, mcpglue, model, permission, session } from '../wailsjs/go/models';
import type { AgentEvent } from './conversation/events';
import { Sequencer, type Numbered } from './sequencer';
import { carryCapability } from './capability';
import type { MCPRequest } from './stores/mcp.svelte';

// Plain data shapes of what the bindings return (the JSON of the Go types;
// the generated classes add methods plain objects lack), nested ones too.
type Data<T> = T extends (infer E)[]
  ? Data<E>[]
  : T extends object
    ? { [K in keyof T as T[K] extends (...a: never[]) => unknown ? never : K]: Data<T[K]> }
    : T;
export type VersionInfo = Data<adapter.VersionInfo>;
export type MCPFailure = Data<mcpglue.MCPFailure>;
/** An MCP server of the running agent with its state; expiry is RFC 3339 (absent: none). */
export type MCPServerState = Omit<Data<mcpglue.MCPServerState>, 'expiry'> & { expiry?: string };
export type KernelStatus = Data<desktop.KernelStatus>;
// Go sends a nil slice as null.
export type WorkspaceInfo = Omit<Data<desktop.WorkspaceInfo>, 'warnings'> & { warnings: string[] | null };
export type Attachment = Data<desktop.Attachment>;
/** A mentioned resource over the mention limit: sizes in bytes. */
export type LargeMention = Data<mcpglue.LargeMention>;
export type PathEntry = Data<desktop.PathEntry>;
export type MCPCatalog = Data<mcpglue.MCPCatalog>;
export type MCPResource = Data<mcpglue.MCPResource>;
export type MCPPrompt = Data<mcpglue.MCPPrompt>;
export type MCPArgument = Data<mcpglue.MCPArgument>;
export type SettingField = Data<desktop.SettingField>;
export type OptionKey = Data<config.OptionKey>;
/** A number setting's bounds: min, max, whole or not, its unit. */
export type NumberBounds = Data<bounds.Number>;
export type SettingsSchema = Data<desktop.SettingsSchema>;
/** The JupyterHub the saved jupyter_url names, for Settings → Kernel (never the token). */
export type HubState = Data<desktop.HubState>;
export type LocalModels = Data<desktop.LocalModels>;
export type ModelSettingKey = Data<model.SettingKey>;
export type Provider = Data<model.Provider>;
export type APIKeys = Data<desktop.APIKeys>;
export type APIKeyStatus = Data<desktop.APIKeyStatus>;
export type KeyStorage = Data<config.KeyStorage>;
export type SettingsSource = Data<desktop.SettingsSource>;
export type FieldError = Data<desktop.FieldError>;
export type SkillInfo = Data<desktop.SkillInfo>;
export type SandboxSettings = Data<desktop.SandboxSettings>;
/** The open conversation's approval mode: rules, ask or auto (paused by its breaker). */
export type ApprovalModeState = Data<desktop.ApprovalModeState>;
export type ApprovalModeName = 'rules' | 'ask' | 'auto';
export type SessionInfo = Data<session.Info>;
export type SessionMatch = Data<session.Match>;
/** A conversation whose agent runs (in view or not) and its state. */
export type LiveConversation = Data<desktop.LiveConversation>;
export type Rule = Data<permission.Rule>;
export type Rules = Data<permission.Rules>;
export type PermissionRules = Data<desktop.PermissionRules>;
export type Preview = Data<permission.Preview>;
export type Decision = 'yes' | 'no' | 'always' | 'session' | 'never';
export type Namespace = Data<kernel.Namespace>;
export type Variable = Data<kernel.Variable>;
export type VariableDetail = Data<kernel.VariableDetail>;
export type ExportFormat = 'ipynb' | 'md' | 'html';
export type FileDiff = Data<checkpoint.FileDiff>;
// Go sends nil slices as null.
export type RevertPlan = {
  restore: Data<checkpoint.Change>[] | null;
  conflicts: Data<checkpoint.Change>[] | null;
  unrestorable: string[] | null;
  protected: Data<checkpoint.ProtectedChange>[] | null;
  unkept: Data<checkpoint.Unkept>[] | null;
};
export type ForkResult = Data<desktop.ForkResult>;
export type InterruptedRevert = Data<desktop.InterruptedRevert>;
export type LaunchTarget = Data<desktop.LaunchTarget>;
export type FolderCheck = Data<desktop.FolderCheck>;
export type AttachmentInfo = Data<desktop.AttachmentInfo>;

export interface Backend {
  version(): Promise<VersionInfo>;
  workspace(): Promise<WorkspaceInfo>;
  recentWorkspaces(): Promise<string[]>;
  pickWorkspace(): Promise<string>;
  openWorkspace(path: string, sessionId: string): Promise<WorkspaceInfo>;
  retryKernel(): Promise<void>;
  applySettings(): Promise<void>;
  restartKernel(): Promise<void>;
  send(prompt: string, attachments: Attachment[]): Promise<void>;
  /** The resources the prompt mentions that are over the mention limit
   * (256 KiB): the prompt box asks before it sends them whole. */
  largeMentions(prompt: string): Promise<LargeMention[]>;
  /** Sends a prompt whose large mentions the user agreed to attach. */
  sendAllowingLarge(prompt: string, attachments: Attachment[]): Promise<void>;
  /** Carries on a turn that failed after its actions ran (Failure.kept). */
  continueTurn(): Promise<void>;
  approve(requestId: string, decision: Decision, pattern: string): Promise<void>;
  replyInput(requestId: string, text: string): Promise<void>;
  cancel(): Promise<void>;
  sessions(): Promise<SessionInfo[]>;
  newSession(): Promise<void>;
  resumeSession(id: string): Promise<void>;
  /** The conversations whose agents run, with their states. */
  conversations(): Promise<LiveConversation[]>;
  /** The limit on live kernels (Settings) and setting it. */
  liveKernelLimit(): Promise<number>;
  setLiveKernelLimit(n: number): Promise<void>;
  /** Subscribes to the live conversations' states, sent on each change. */
  onConversations(cb: (c: LiveConversation[]) => void): () => void;
  /** Gives a session a title of its own ("" goes back to its first prompt). */
  renameSession(id: string, title: string): Promise<void>;
  /** Deletes a session; deleting the open one starts a new conversation. */
  deleteSession(id: string): Promise<void>;
  /** The sessions whose prompts or replies hold query, with a snippet each. */
  searchSessions(query: string): Promise<SessionMatch[]>;
  /** Sets the window's title. */
  setTitle(title: string): void;
  /** Closes the window and quits. */
  quit(): void;
  imageData(path: string): Promise<string>;
  openFile(path: string): Promise<void>;
  /** Shows a file in the file manager (its folder, where no file manager answers). */
  showInFolder(path: string): Promise<void>;
  completePath(prefix: string): Promise<PathEntry[]>;
  /** The MCP servers' resources, templates and prompts, for @ and /. */
  mcpCatalog(): Promise<MCPCatalog>;
  /** completion/complete: kind "prompt" (name a prompt) or "resource" (name a template). */
  completeMCP(kind: 'prompt' | 'resource', server: string, name: string, arg: string, value: string, resolved: Record<string, string>): Promise<string[]>;
  /** Fills in a resource template (RFC 6570). */
  mcpResourceURI(template: string, values: Record<string, string>): Promise<string>;
  imagesIn(dir: string): Promise<string[]>;
  skills(): Promise<SkillInfo[]>;
  settings(): Promise<SettingField[]>;
  /** Where the settings come from (agent.json, or freeact 0.11's config.toml) and what of them has no effect. */
  settingsSource(): Promise<SettingsSource>;
  saveSettings(values: Record<string, string>): Promise<FieldError[]>;
  /** Checks form values by agent.json's rules without writing anything. */
  checkSettings(values: Record<string, string>): Promise<FieldError[]>;
  /** The providers, model settings and server bounds the forms are built from. */
  settingsSchema(): Promise<SettingsSchema>;
  /** The models a local provider's server (or the base URL's) offers. */
  localModels(provider: string, base: string): Promise<LocalModels>;
  /** Where new API keys go and where each key's value comes from. */
  apiKeys(): Promise<APIKeys>;
  /** Saved agent.json keys that apply only when the kernel restarts. */
  pendingRestart(): Promise<string[]>;
  /** Stores (or with "" removes) an API key; returns where it went. */
  setAPIKey(name: string, key: string): Promise<KeyStorage>;
  testMCPServer(name: string, json: string): Promise<string[]>;
  /** Generates a saved ptc_servers entry's Python API again; returns its folder. */
  regenerateMCPTools(name: string): Promise<string>;
  apiKeyNames(): Promise<string[]>;
  permissions(): Promise<PermissionRules>;
  savePermissions(rules: Rules): Promise<void>;
  /** What a new rule of the permissions editor would allow. */
  previewRule(rule: Rule): Promise<Preview>;
  /** What the rule of an Always answer to a pending approval would allow. */
  previewAlways(requestId: string, pattern: string): Promise<Preview>;
  /** Takes back a Session answer's rule; returns the rules left. */
  revokeSessionRule(rule: Rule): Promise<PermissionRules>;
  sandbox(): Promise<SandboxSettings>;
  saveSandbox(enabled: boolean, content: string): Promise<FieldError[]>;
  /** Saves the session as a notebook, Markdown or HTML (asks where);
   * returns the path written, "" when cancelled. */
  exportSession(format: ExportFormat, thoughts: boolean): Promise<string>;
  /** Answers a code action with the cell as the user edited it. */
  approveEdited(requestId: string, code: string): Promise<void>;
  /** Runs code as the user's own action: again (of is the cell it runs
   * again) or a notebook cell that has not run (of is its id). */
  runCell(code: string, of: string, source: 'rerun' | 'notebook'): Promise<void>;
  /** Restores the kernel's lost state by replaying the session's cells. */
  replay(): Promise<void>;
  skipReplay(): Promise<void>;
  /** The native file dialog for a notebook; "" when cancelled. */
  pickNotebook(): Promise<string>;
  openNotebook(path: string): Promise<void>;
  /** Runs the opened notebook's code cells, each approved. */
  runNotebook(): Promise<void>;
  /** The kernel's user variables, read without running a cell. */
  variables(): Promise<Namespace>;
  describeVariable(name: string): Promise<VariableDetail>;
  /** Summarises the older turns now; events report it. */
  compactNow(): Promise<void>;
  /** The open conversation's approval mode (the header's switch). */
  approvalMode(): Promise<ApprovalModeState>;
  /** Sets it; "auto" again resumes auto mode after its breaker paused it. */
  setApprovalMode(mode: ApprovalModeName): Promise<ApprovalModeState>;
  /** Answers a budget request: continue (raising the budget) or stop. */
  continueBudget(requestId: string, ok: boolean): Promise<void>;
  /** Lets a model call that waits for MCP servers go on without them. */
  skipMCPWait(requestId: string): Promise<void>;
  /** The files an action, a turn or a revert changed, with unified diffs. */
  checkpointDiff(id: string): Promise<FileDiff[]>;
  /** What reverting a checkpoint would do now. */
  planRevert(id: string): Promise<RevertPlan>;
  /** Reverts a checkpoint; force also overwrites files changed since and
   * changes protected files; deleteUnkept are the unkept files ticked. */
  revert(id: string, force: boolean, deleteUnkept: string[]): Promise<void>;
  /** Forks the session before prompt number turn; edited, when given, is
   * sent there once the new session is ready. */
  forkSession(turn: number, edited: string): Promise<ForkResult>;
  /** Completes the revert a process that died left cut short (its
   * Reverted, with Undo, arrives as an event). */
  finishRevert(): Promise<void>;
  /** Puts the files that revert changed back as they were before it. */
  rollbackRevert(): Promise<void>;
  /** Continues the conversation another process has open in a copy,
   * opened here; returns the copy's session id. */
  forkBusySession(): Promise<string>;
  /** What to open at start: the workspace of `freeact PATH` or the last one. */
  launch(): Promise<LaunchTarget>;
  /** Expands ~ and says whether a typed path is an existing folder. */
  inspectFolder(path: string): Promise<FolderCheck>;
  /** Creates a missing folder; returns its absolute path. */
  createFolder(path: string): Promise<string>;
  /** Checks files to attach: a thumbnail for images, a problem otherwise. */
  checkAttachments(paths: string[]): Promise<AttachmentInfo[]>;
  /** The native file chooser for images, several at once. */
  pickImages(): Promise<string[]>;
  /** Saves a copy of an image the conversation shows; "" when cancelled. */
  saveImage(src: string): Promise<string>;
  /** The grants of the open conversation. */
  sessionGrants(): Promise<Rule[]>;
  /** Revokes a grant; returns the grants left. */
  revokeGrant(rule: Rule): Promise<Rule[]>;
  /** Puts text on the clipboard. */
  copyText(text: string): Promise<void>;
  /** The image on the clipboard as a PNG data URL; "" when there is none. */
  clipboardImage(): Promise<string>;
  /** Puts an image the conversation shows (a workspace path or a data URL) on the clipboard. */
  copyImage(src: string): Promise<void>;
  /** Answers a server's form card: accept (with values), decline or cancel. */
  answerForm(id: string, action: 'accept' | 'decline' | 'cancel', values: Record<string, unknown>): Promise<void>;
  /** Stops the sign-in of a "Sign in to NAME" card. */
  cancelSignIn(id: string): Promise<void>;
  /** The running agent's MCP servers with their state (Settings → MCP). */
  mcpServers(): Promise<MCPServerState[]>;
  /** Signs in to a server (its card shows the browser step) and connects it. */
  mcpSignIn(server: string): Promise<void>;
  /** Forgets a server's tokens. */
  mcpSignOut(server: string): Promise<void>;
  /** Tries again to connect a server that did not start; the kernel status follows. */
  mcpConnect(server: string): Promise<void>;
  /** The JupyterHub of the saved jupyter_url: who is signed in, whether the browser sign-in is offered. */
  hubStatus(): Promise<HubState>;
  /** Checks a pasted Hub token with the Hub and keeps it in the key store. */
  hubSetToken(token: string): Promise<HubState>;
  /** Signs in through the Hub in the browser (OAuth; the sign-in card shows the browser step). */
  hubSignIn(): Promise<HubState>;
  /** Removes the Hub's token from the key store. */
  hubSignOut(): Promise<HubState>;
  /** Subscribes to the MCP servers' sign-ins and forms. */
  onMCP(cb: (r: MCPRequest) => void): () => void;
  /** Subscribes to agent event batches; returns the unsubscribe function. */
  onEvents(cb: (batch: AgentEvent[]) => void): () => void;
  onKernel(cb: (s: KernelStatus) => void): () => void;
  /** Subscribes to workspaces opened by any page on the backend (this one,
   * the window, a browser on the dev server), each before its agent's
   * events; its kernel status is not yet known (onKernel follows). */
  onWorkspace(cb: (w: WorkspaceInfo) => void): () => void;
  /** Files dropped on the window (Wails OnFileDrop). */
  onFileDrop(cb: (x: number, y: number, paths: string[]) => void): () => void;
}

/** Turns whatever a rejected binding call threw into an Error. */
export function toError(e: unknown): Error {
  if (e instanceof Error) return e;
  if (typeof e === 'string') return new Error(e);
  return new Error(`unexpected error from the backend: ${JSON.stringify(e)}`);
}

// Every call carries the window's capability (lib/capability.ts).
carryCapability(window, document);

function connected(): boolean {
  const w = window as unknown as { go?: { desktop?: { Desktop?: unknown } } };
  return w.go?.desktop?.Desktop !== undefined;
}

export async function call<T>(fn: () => Promise<T>): Promise<T> {
  if (!connected()) {
    throw new Error('The freeact backend is not connected: open this page through the freeact app.');
  }
  try {
    return await fn();
  } catch (e) {
    throw toError(e);
  }
}

function hasRuntime(): boolean {
  return (window as unknown as { runtime?: unknown }).runtime !== undefined;
}

// The event channels share one numbering, so one sequencer orders them.
type Incoming =
  | { name: 'agent:events'; data: AgentEvent[] }
  | { name: 'kernel:status'; data: KernelStatus }
  | { name: 'workspace:open'; data: WorkspaceInfo }
  | { name: 'mcp:request'; data: MCPRequest }
  | { name: 'conversations:state'; data: LiveConversation[] };
const conversationHandlers = new Set<(c: LiveConversation[]) => void>();
const eventHandlers = new Set<(b: AgentEvent[]) => void>();
const kernelHandlers = new Set<(s: KernelStatus) => void>();
const workspaceHandlers = new Set<(w: WorkspaceInfo) => void>();
const mcpHandlers = new Set<(r: MCPRequest) => void>();
const sequencer = new Sequencer<Incoming>((m) => {
  if (m.name === 'agent:events') eventHandlers.forEach((h) => h(m.data));
  else if (m.name === 'kernel:status') kernelHandlers.forEach((h) => h(m.data));
  else if (m.name === 'mcp:request') mcpHandlers.forEach((h) => h(m.data));
  else if (m.name === 'conversations:state') conversationHandlers.forEach((h) => h(m.data));
  else workspaceHandlers.forEach((h) => h(m.data));
});
let listening = false;
function listen() {
  if (listening || !hasRuntime()) return;
  listening = true;
  for (const name of ['agent:events', 'kernel:status', 'workspace:open', 'mcp:request', 'conversations:state'] as const) {
    Runtime.EventsOn(name, (m: Numbered<Incoming['data']>) =>
      sequencer.push({ seq: m.seq, data: { name, data: m.data } as Incoming }),
    );
  }
}

/** Adds cb to handlers until the returned function is called. */
function subscribe<T>(handlers: Set<T>, cb: T): () => void {
  listen();
  handlers.add(cb);
  return () => handlers.delete(cb);
}

export const backend: Backend = {
  version: () => call(Desktop.Version),
  workspace: () => call(Desktop.Workspace) as Promise<WorkspaceInfo>,
  recentWorkspaces: () => call(Desktop.RecentWorkspaces),
  pickWorkspace: () => call(Desktop.PickWorkspace),
  openWorkspace: (path, sid) => call(() => Desktop.OpenWorkspace(path, sid)) as Promise<WorkspaceInfo>,
  retryKernel: () => call(Desktop.RetryKernel),
  applySettings: () => call(Desktop.ApplySettings),
  restartKernel: () => call(Desktop.RestartKernel),
  send: (prompt, attachments) => call(() => Desktop.Send(prompt, attachments as desktop.Attachment[])),
  largeMentions: (prompt) => call(() => Desktop.LargeMentions(prompt)),
  sendAllowingLarge: (prompt, attachments) =>
    call(() => Desktop.SendAllowingLarge(prompt, attachments as desktop.Attachment[])),
  continueTurn: () => call(Desktop.ContinueTurn),
  approve: (id, d, pattern) => call(() => Desktop.Approve(id, d, pattern)),
  replyInput: (id, text) => call(() => Desktop.ReplyInput(id, text)),
  cancel: () => call(Desktop.Cancel),
  sessions: () => call(Desktop.Sessions) as Promise<SessionInfo[]>,
  newSession: () => call(Desktop.NewSession),
  resumeSession: (id) => call(() => Desktop.ResumeSession(id)),
  conversations: () => call(Desktop.Conversations) as Promise<LiveConversation[]>,
  liveKernelLimit: () => call(Desktop.LiveKernelLimit),
  setLiveKernelLimit: (n) => call(() => Desktop.SetLiveKernelLimit(n)),
  onConversations: (cb) => subscribe(conversationHandlers, cb),
  renameSession: (id, title) => call(() => Desktop.RenameSession(id, title)),
  deleteSession: (id) => call(() => Desktop.DeleteSession(id)),
  searchSessions: (query) => call(() => Desktop.SearchSessions(query)),
  setTitle(title) {
    document.title = title;
    if (hasRuntime()) Runtime.WindowSetTitle(title);
  },
  quit() {
    if (hasRuntime()) Runtime.Quit();
  },
  imageData: (path) => call(() => Desktop.ImageData(path)),
  openFile: (path) => call(() => Desktop.OpenFile(path)),
  showInFolder: (path) => call(() => Desktop.ShowInFolder(path)),
  completePath: (prefix) => call(() => Desktop.CompletePath(prefix)),
  mcpCatalog: () => call(Desktop.MCPCatalog) as Promise<MCPCatalog>,
  completeMCP: (kind, server, name, arg, value, resolved) => call(() => Desktop.CompleteMCP(kind, server, name, arg, value, resolved)),
  mcpResourceURI: (template, values) => call(() => Desktop.MCPResourceURI(template, values)),
  imagesIn: (dir) => call(() => Desktop.ImagesIn(dir)),
  skills: () => call(Desktop.Skills),
  settings: () => call(Desktop.Settings),
  settingsSource: () => call(Desktop.SettingsSource),
  saveSettings: (values) => call(() => Desktop.SaveSettings(values)),
  checkSettings: (values) => call(() => Desktop.CheckSettings(values)),
  settingsSchema: () => call(Desktop.SettingsSchema),
  localModels: (provider, base) => call(() => Desktop.LocalModels(provider, base)),
  apiKeys: () => call(Desktop.APIKeys),
  pendingRestart: () => call(Desktop.PendingRestart),
  setAPIKey: (name, key) => call(() => Desktop.SetAPIKey(name, key)),
  testMCPServer: (name, json) => call(() => Desktop.TestMCPServer(name, json)),
  regenerateMCPTools: (name) => call(() => Desktop.RegenerateMCPTools(name)),
  apiKeyNames: () => call(Desktop.APIKeyNames),
  permissions: () => call(Desktop.Permissions) as Promise<PermissionRules>,
  savePermissions: (rules) => call(() => Desktop.SavePermissions(rules as permission.Rules)),
  previewRule: (rule) => call(() => Desktop.PreviewRule(rule as permission.Rule)),
  previewAlways: (id, pattern) => call(() => Desktop.PreviewAlways(id, pattern)),
  revokeSessionRule: (rule) => call(() => Desktop.RevokeSessionRule(rule as permission.Rule)) as Promise<PermissionRules>,
  sandbox: () => call(Desktop.Sandbox),
  saveSandbox: (enabled, content) => call(() => Desktop.SaveSandbox(enabled, content)),
  exportSession: (format, thoughts) => call(() => Desktop.ExportSession(format, thoughts)),
  approveEdited: (id, code) => call(() => Desktop.ApproveEdited(id, code)),
  runCell: (code, of, source) => call(() => Desktop.RunCell(code, of, source)),
  replay: () => call(Desktop.Replay),
  skipReplay: () => call(Desktop.SkipReplay),
  pickNotebook: () => call(Desktop.PickNotebook),
  openNotebook: (path) => call(() => Desktop.OpenNotebook(path)),
  runNotebook: () => call(Desktop.RunNotebook),
  variables: () => call(Desktop.Variables) as Promise<Namespace>,
  describeVariable: (name) => call(() => Desktop.DescribeVariable(name)) as Promise<VariableDetail>,
  compactNow: () => call(Desktop.CompactNow),
  approvalMode: () => call(Desktop.ApprovalMode),
  setApprovalMode: (mode) => call(() => Desktop.SetApprovalMode(mode)),
  continueBudget: (id, ok) => call(() => Desktop.ContinueBudget(id, ok)),
  skipMCPWait: (id) => call(() => Desktop.SkipMCPWait(id)),
  checkpointDiff: (id) => call(() => Desktop.CheckpointDiff(id)),
  planRevert: (id) => call(() => Desktop.PlanRevert(id)) as Promise<RevertPlan>,
  revert: (id, force, deleteUnkept) => call(() => Desktop.Revert(id, force, deleteUnkept)),
  forkSession: (turn, edited) => call(() => Desktop.ForkSession(turn, edited)),
  finishRevert: () => call(Desktop.FinishRevert),
  rollbackRevert: () => call(Desktop.RollbackRevert),
  forkBusySession: () => call(Desktop.ForkBusySession),
  launch: () => call(Desktop.Launch),
  inspectFolder: (path) => call(() => Desktop.InspectFolder(path)),
  createFolder: (path) => call(() => Desktop.CreateFolder(path)),
  checkAttachments: (paths) => call(() => Desktop.CheckAttachments(paths)),
  pickImages: () => call(Desktop.PickImages),
  saveImage: (src) => call(() => Desktop.SaveImage(src)),
  sessionGrants: () => call(Desktop.SessionGrants),
  revokeGrant: (rule) => call(() => Desktop.RevokeGrant(rule as permission.Rule)),
  async copyText(text) {
    // The runtime's clipboard is GTK's; the page's may be refused outside
    // a secure context.
    if (hasRuntime() && (await Runtime.ClipboardSetText(text))) return;
    await navigator.clipboard.writeText(text);
  },
  copyImage: (src) => call(() => Desktop.CopyImage(src)),
  clipboardImage: () => call(Desktop.ClipboardImage),
  answerForm: (id, action, values) => call(() => Desktop.AnswerForm(id, action, values)),
  cancelSignIn: (id) => call(() => Desktop.CancelSignIn(id)),
  mcpServers: () => call(Desktop.MCPServers) as Promise<MCPServerState[]>,
  mcpSignIn: (server) => call(() => Desktop.MCPSignIn(server)),
  mcpConnect: (server) => call(() => Desktop.MCPConnect(server)),
  mcpSignOut: (server) => call(() => Desktop.MCPSignOut(server)),
  hubStatus: () => call(Desktop.HubStatus),
  hubSetToken: (token) => call(() => Desktop.HubSetToken(token)),
  hubSignIn: () => call(Desktop.HubSignIn),
  hubSignOut: () => call(Desktop.HubSignOut),
  onMCP: (cb) => subscribe(mcpHandlers, cb),
  onEvents: (cb) => subscribe(eventHandlers, cb),
  onKernel: (cb) => subscribe(kernelHandlers, cb),
  onWorkspace: (cb) => subscribe(workspaceHandlers, cb),
  onFileDrop(cb) {
    if (!hasRuntime()) return () => {};
    Runtime.OnFileDrop(cb, true);
    return () => Runtime.OnFileDropOff();
  },
};

/** Opens an address in the user's browser, never in the window (a link
 * of an answer; a remote image is shown as such a link). The backend
 * (Desktop.OpenLink, internal/opener) decides what may be opened: https,
 * and http to this computer; a refusal or a browser that failed is logged. */
export function openInBrowser(url: string): void {
  if (!connected()) return;
  Desktop.OpenLink(url).catch((e: unknown) => console.warn(`The link was not opened: ${toError(e).message}`));
}
