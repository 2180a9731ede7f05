import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import SessionSidebar from './SessionSidebar.svelte';
import WaitingElsewhere from './WaitingElsewhere.svelte';
import type { LiveConversation, SessionInfo } from '../../lib/backend';

const now = new Date().toISOString();
const sessions: SessionInfo[] = [
  { id: 'b', created: now, title: 'Plot sin(x)', renamed: false, last_active: now, messages: 4 },
  { id: 'a', created: now, title: 'Read the CSV', renamed: false, last_active: now, messages: 2 },
  { id: 'c', created: now, title: 'Old one', renamed: false, last_active: now, messages: 2 },
];
const waitingOne: LiveConversation = { sessionId: 'a', workspace: '/w', state: 'waiting', waiting: 2, inView: false };
const live: LiveConversation[] = [{ sessionId: 'b', workspace: '/w', state: 'running', waiting: 0, inView: true }, waitingOne];

describe('live conversations', () => {
  it('the session list shows the state of each one whose agent runs', () => {
    render(SessionSidebar, {
      sessions,
      current: 'b',
      live,
      onresume: vi.fn(),
      onnew: vi.fn(),
      onrename: vi.fn(),
      ondelete: vi.fn(),
      onsearch: vi.fn(async () => []),
    });
    const [b, a, c] = screen.getAllByTestId('session');
    expect(within(b!).getByTestId('session-state')).toHaveTextContent('running');
    expect(within(a!).getByTestId('session-state')).toHaveTextContent('waits for you (2)');
    expect(within(c!).queryByTestId('session-state')).toBeNull();
  });

  it('the header counts what waits elsewhere and a click goes there', async () => {
    const ongo = vi.fn();
    render(WaitingElsewhere, { live, ongo });
    const btn = screen.getByTestId('waiting-elsewhere');
    expect(btn).toHaveTextContent('2 waiting elsewhere');
    await userEvent.click(btn);
    expect(ongo).toHaveBeenCalledWith('a');
  });

  it('nothing shows when only the conversation in view waits', () => {
    render(WaitingElsewhere, { live: [{ ...waitingOne, inView: true }], ongo: vi.fn() });
    expect(screen.queryByTestId('waiting-elsewhere')).toBeNull();
  });
});
