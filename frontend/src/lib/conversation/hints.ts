// An MCP tool's annotations (readOnlyHint, destructiveHint, idempotentHint,
// openWorldHint, title) as the approval shows them. They are the server's
// word: shown plainly, never a reason to allow a call.
import type { ToolHints } from './events';

export interface HintBadge {
  /** What the badge says. */
  label: string;
  /** danger: the call may destroy something; calm: it says it changes nothing. */
  tone: 'danger' | 'calm' | 'plain';
  /** The annotation it comes from, for the tooltip. */
  source: string;
}

/** The badges of a tool's hints, in a fixed order; none without hints. */
export function hintBadges(h: ToolHints | undefined): HintBadge[] {
  if (!h) return [];
  const out: HintBadge[] = [];
  if (h.read_only === true) out.push({ label: 'read-only', tone: 'calm', source: 'readOnlyHint: true' });
  if (h.read_only === false) out.push({ label: 'changes things', tone: 'plain', source: 'readOnlyHint: false' });
  if (h.destructive === true) out.push({ label: 'destructive', tone: 'danger', source: 'destructiveHint: true' });
  if (h.destructive === false) out.push({ label: 'not destructive', tone: 'plain', source: 'destructiveHint: false' });
  if (h.idempotent === true) out.push({ label: 'idempotent', tone: 'plain', source: 'idempotentHint: true' });
  if (h.idempotent === false) out.push({ label: 'not idempotent', tone: 'plain', source: 'idempotentHint: false' });
  if (h.open_world === true) out.push({ label: 'reaches outside', tone: 'plain', source: 'openWorldHint: true' });
  if (h.open_world === false) out.push({ label: 'closed world', tone: 'plain', source: 'openWorldHint: false' });
  return out;
}
