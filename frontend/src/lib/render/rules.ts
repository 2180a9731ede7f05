// Permission rules in words, as the grants list and the settings show them.
import type { RuleData } from '../conversation/events';

const kinds: Record<string, string> = {
  CodeAction: 'Code actions',
  ShellAction: 'Shell',
  GenericCall: 'Tool',
  FileRead: 'Read',
  FileWrite: 'Write',
  FileEdit: 'Edit',
};

/** The kind of call a rule allows and its pattern, in the form an
 * approval suggests (Go's permission.Rule.Pattern). */
export function ruleLabel(r: RuleData): { kind: string; pattern: string } {
  const kind = kinds[r.type] ?? r.type;
  if (r.type === 'ShellAction') return { kind, pattern: r.command ?? '' };
  if (r.type.startsWith('File')) return { kind, pattern: `${r.tool_name} ${r.path ?? ''}` };
  return { kind, pattern: r.tool_name };
}
