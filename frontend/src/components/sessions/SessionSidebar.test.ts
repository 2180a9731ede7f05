import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import SessionSidebar from './SessionSidebar.svelte';
import type { SessionInfo } from '../../lib/backend';

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
const sessions: SessionInfo[] = [
  { id: 'b', created: minutesAgo(9), title: 'Plot sin(x)', renamed: false, last_active: minutesAgo(5), messages: 4 },
  { id: 'a', created: minutesAgo(60 * 24 * 11), title: 'Read the CSV', renamed: false, last_active: minutesAgo(60 * 24 * 10), messages: 2 },
];

function setup(over: Record<string, unknown> = {}) {
  const props = {
    sessions,
    current: 'b',
    onresume: vi.fn(),
    onnew: vi.fn(),
    onrename: vi.fn(),
    ondelete: vi.fn(),
    onsearch: vi.fn(async () => [{ id: 'a', snippet: '…the CSV has 3 columns…' }]),
    ...over,
  };
  render(SessionSidebar, props);
  return props;
}

describe('SessionSidebar', () => {
  it('lists conversations in the given order with relative dates', () => {
    setup();
    const items = screen.getAllByTestId('session');
    expect(items.map((i) => within(i).getByRole('button', { name: /messages/ }).textContent)).toEqual([
      expect.stringContaining('Plot sin(x)'),
      expect.stringContaining('Read the CSV'),
    ]);
    expect(items[0]).toHaveTextContent('5 minutes ago · 4 messages');
    expect(items[1]).not.toHaveTextContent('ago');
  });

  it('renames with F2 from the keyboard; Esc keeps the old title', async () => {
    const p = setup();
    screen.getByRole('button', { name: /^Plot sin\(x\)/ }).focus();
    await userEvent.keyboard('{F2}');
    const input = screen.getByLabelText('New title');
    expect(input).toHaveFocus();
    await userEvent.clear(input);
    await userEvent.type(input, 'Sine plot{Enter}');
    expect(p.onrename).toHaveBeenCalledExactlyOnceWith('b', 'Sine plot');
    await userEvent.click(screen.getByRole('button', { name: 'Rename “Read the CSV”' }));
    await userEvent.type(screen.getByLabelText('New title'), 'x{Escape}');
    expect(p.onrename).toHaveBeenCalledTimes(1);
  });

  it('deletes only after the confirmation', async () => {
    const p = setup();
    screen.getByRole('button', { name: /^Read the CSV/ }).focus();
    await userEvent.keyboard('{Delete}');
    const confirm = screen.getByRole('group', { name: 'Delete this conversation?' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(p.ondelete).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Delete “Read the CSV”' }));
    expect(screen.getByRole('button', { name: 'Delete' })).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    expect(p.ondelete).toHaveBeenCalledExactlyOnceWith('a');
  });

  it('searches by text, shows the snippet, and Enter resumes the first hit', async () => {
    const p = setup();
    await userEvent.type(screen.getByLabelText('Search conversations'), 'columns');
    await vi.waitFor(() => expect(screen.getAllByTestId('session')).toHaveLength(1));
    expect(screen.getByTestId('session')).toHaveTextContent('…the CSV has 3 columns…');
    expect(p.onsearch).toHaveBeenLastCalledWith('columns');
    await userEvent.keyboard('{Enter}');
    expect(p.onresume).toHaveBeenCalledExactlyOnceWith('a');
    await userEvent.keyboard('{Escape}');
    expect(screen.getAllByTestId('session')).toHaveLength(2);
  });

  it('says when nothing matches', async () => {
    setup({ onsearch: vi.fn(async () => []) });
    await userEvent.type(screen.getByLabelText('Search conversations'), 'zebra');
    expect(await screen.findByText('Nothing found for “zebra”.')).toBeInTheDocument();
  });
});
