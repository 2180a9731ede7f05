// Settings → Hooks and the trust question talk to the backend here,
// through the generated bindings like every other call (backend.ts).
import * as Desktop from '../wailsjs/go/desktop/Desktop';
import type { desktop, hooks } from '../wailsjs/go/models';
import { call } from './backend';

type Data<T> = T extends (infer E)[]
  ? Data<E>[]
  : T extends object
    ? { [K in keyof T as T[K] extends (...a: never[]) => unknown ? never : K]: Data<T[K]> }
    : T;
export type HooksInfo = Data<desktop.HooksInfo>;
export type HookFile = Data<desktop.HookFile>;
export type HookEntry = Data<desktop.HookEntry>;
export type HookRun = Data<hooks.Run>;
export type ClaudeImport = Data<hooks.ClaudeImport>;
export type HookSource = 'user' | 'workspace';

export interface HooksBackend {
  hooks(): Promise<HooksInfo>;
  /** Writes a hooks file whole (Claude Code's settings format). */
  saveHooks(source: HookSource, content: string): Promise<HooksInfo>;
  setHookDisabled(source: HookSource, event: string, group: number, handler: number, disabled: boolean): Promise<HooksInfo>;
  /** Trusts the workspace's hooks as shown: digest is HookFile.digest. */
  trustHooks(digest: string): Promise<HooksInfo>;
  /** Reads the project's Claude Code hooks, to show them before an import. */
  claudeHooks(): Promise<ClaudeImport>;
  importClaudeHooks(digest: string): Promise<HooksInfo>;
}

export const hooksBackend: HooksBackend = {
  hooks: () => call(Desktop.Hooks) as Promise<HooksInfo>,
  saveHooks: (source, content) => call(() => Desktop.SaveHooks(source, content)) as Promise<HooksInfo>,
  setHookDisabled: (source, event, group, handler, disabled) =>
    call(() => Desktop.SetHookDisabled(source, event, group, handler, disabled)) as Promise<HooksInfo>,
  trustHooks: (digest) => call(() => Desktop.TrustHooks(digest)) as Promise<HooksInfo>,
  claudeHooks: () => call(Desktop.ClaudeHooks) as Promise<ClaudeImport>,
  importClaudeHooks: (digest) => call(() => Desktop.ImportClaudeHooks(digest)) as Promise<HooksInfo>,
};

/** The hook events, in the order of a turn (agent/hooks.Events). */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'Notification',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'SessionEnd',
];

/** content with a command hook added for event on matcher; an error
 * names what is wrong with content. */
export function addCommandHook(content: string, event: string, matcher: string, command: string): string {
  let doc: Record<string, unknown> = {};
  if (content.trim() !== '') {
    const parsed: unknown = JSON.parse(content);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('The hooks file is not a JSON object.');
    doc = parsed as Record<string, unknown>;
  }
  const all = (doc.hooks ?? {}) as Record<string, unknown[]>;
  const group: Record<string, unknown> = { hooks: [{ type: 'command', command }] };
  if (matcher.trim() !== '') group.matcher = matcher.trim();
  all[event] = [...(all[event] ?? []), group];
  doc.hooks = all;
  return JSON.stringify(doc, null, 2) + '\n';
}
