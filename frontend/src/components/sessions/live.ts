import type { LiveConversation } from '../../lib/backend';

/** What the session list says of a conversation whose agent runs. */
export function liveLabel(c: LiveConversation): string {
  switch (c.state) {
    case 'waiting':
      return c.waiting > 1 ? `waits for you (${c.waiting})` : 'waits for you';
    case 'running':
      return 'running';
    case 'starting':
      return 'starting';
    case 'finished':
      return 'finished';
    case 'failed':
      return 'failed';
    default:
      return 'idle';
  }
}

/** The conversations out of view that wait for the user, and how many
 * requests they wait on in all. */
export function waitingElsewhere(live: LiveConversation[]): { convs: LiveConversation[]; requests: number } {
  const convs = live.filter((c) => !c.inView && c.state === 'waiting');
  return { convs, requests: convs.reduce((n, c) => n + c.waiting, 0) };
}
