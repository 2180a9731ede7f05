// The only door from the UI to the Go backend: every call goes through the
// bindings Wails generates from package app (src/wailsjs, made by
// `make bindings`). Errors come back as Error objects with the Go message.
import * as Desktop from '../wailsjs/go/app/Desktop';
import type { app } from '../wailsjs/go/models';

export type VersionInfo = app.VersionInfo;
export type WorkspaceInfo = app.WorkspaceInfo;

export interface Backend {
  version(): Promise<VersionInfo>;
  workspace(): Promise<WorkspaceInfo>;
  send(prompt: string): Promise<void>;
}

/** Turns whatever a rejected binding call threw into an Error. */
export function toError(e: unknown): Error {
  if (e instanceof Error) return e;
  if (typeof e === 'string') return new Error(e);
  return new Error(`unexpected error from the backend: ${JSON.stringify(e)}`);
}

function connected(): boolean {
  const w = window as unknown as { go?: { app?: { Desktop?: unknown } } };
  return w.go?.app?.Desktop !== undefined;
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  if (!connected()) {
    throw new Error('The freeact backend is not connected: open this page through the freeact app.');
  }
  try {
    return await fn();
  } catch (e) {
    throw toError(e);
  }
}

export const backend: Backend = {
  version: () => call(Desktop.Version),
  workspace: () => call(Desktop.Workspace),
  send: (prompt) => call(() => Desktop.Send(prompt)),
};
