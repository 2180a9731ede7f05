// The window's title: the conversation, the workspace and the app, the
// most specific first, as GNOME and VS Code put them.
const MAX = 60;

export function windowTitle(workspace: string, conversation: string): string {
  let c = conversation.replace(/\s+/g, ' ').trim();
  if (c.length > MAX) c = c.slice(0, MAX - 1).trimEnd() + '…';
  return [c, workspace, 'freeact'].filter((x) => x !== '').join(' — ');
}
