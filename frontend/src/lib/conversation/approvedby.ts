// What a call's "auto-approved" badge says: who let it run without a
// click (a rule, a grant, a hook, or in auto mode the sandbox, a trusted
// read-only tool or the judge) and, for the judge, why.
import type { Approval, ToolItem } from './reducer';
import type { ApprovedBy } from './events';
import { visibleLine } from '../render/visible';

/** The kinds auto mode itself allows (not a rule, grant or hook). */
export const AUTO_MODE_BY: readonly ApprovedBy[] = ['sandbox', 'read_only', 'judge'];

/** Whether auto mode (not a rule, a grant or a hook) let the call run. */
export function byAutoMode(a: Approval | null): boolean {
  return !!a && AUTO_MODE_BY.includes(a.by);
}

const short: Record<ApprovedBy, string> = {
  rule: 'saved rule',
  session: 'session grant',
  skip: 'permissions skipped',
  hook: 'hook',
  sandbox: 'sandbox',
  read_only: 'read-only tool',
  judge: 'judge',
};

/** The badge's words after "auto-approved · " (the rule or reason apart). */
export function badgeWord(a: Approval): string {
  return short[a.by] ?? a.by;
}

/** The badge's detail: the rule's pattern, or the judge's reason. */
export function badgeDetail(a: Approval): string {
  return visibleLine(a.by === 'judge' ? a.reason : a.rule);
}

/** The whole sentence, for the tooltip and screen readers. */
export function approvalSentence(a: Approval): string {
  switch (a.by) {
    case 'session':
      return `Auto-approved by this session's grant: ${a.rule}`;
    case 'skip':
      return 'Auto-approved: permissions are skipped';
    case 'hook':
      return `Auto-approved by a hook: ${a.rule}`;
    case 'sandbox':
      return 'Auto mode ran it without a click: the sandbox bounds it (no network, writes only in the workspace) and checkpoints undo it';
    case 'read_only':
      return "Auto mode ran it without a click: a read-only tool of a server you trusted";
    case 'judge':
      return `Auto mode's judge allowed it${a.reason ? `: ${visibleLine(a.reason)}` : ''}`;
    default:
      return `Auto-approved by the saved rule: ${a.rule}`;
  }
}

/** The calls of items that auto mode let run without a click, oldest first. */
export function autoRan<T extends { kind: string }>(items: T[]): (T & ToolItem)[] {
  return items.filter((it): it is T & ToolItem => it.kind === 'tool' && byAutoMode((it as unknown as ToolItem).approvedBy));
}
