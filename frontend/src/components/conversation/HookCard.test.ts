import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import HookCard from './HookCard.svelte';
import { initialState, reduce, type HookItem } from '../../lib/conversation/reducer';
import type { AgentEvent } from '../../lib/conversation/events';

describe('HookCard', () => {
  it('shows what a hook blocked and what it said, as plain text only', () => {
    // A HookNote event becomes a hook item of the conversation.
    const ev = {
      type: 'HookNote',
      agent_id: 'main',
      correlation_id: 'c1',
      kind: 'blocked',
      event: 'PreToolUse',
      tool: 'Bash',
      text: '<b>bold</b> [click](https://evil.example) <span class="told">Told the model</span>',
    } as AgentEvent;
    const s = reduce(initialState(), ev, 1000);
    const item = s.items.find((it) => it.kind === 'hook') as HookItem;
    expect(item).toMatchObject({ what: 'blocked', tool: 'Bash', call: 'c1' });
    const { container } = render(HookCard, { item });
    const card = screen.getByTestId('hook-card');
    expect(card.textContent).toContain('blocked');
    expect(card.textContent).toContain('Bash');
    expect(screen.getByTestId('hook-said').textContent).toContain('<b>bold</b> [click](https://evil.example)');
    // No markup of the hook's became an element: no bold, link or note badge.
    expect(container.querySelector('b, a, .told')).toBeNull();
  });

  it('shows the input a hook changed a call to', () => {
    const item: HookItem = { kind: 'hook', id: 'h1', what: 'changed', event: 'PreToolUse', tool: 'Write', text: '', input: '{"content":"x"}', call: 'c2' };
    render(HookCard, { item });
    expect(screen.getByTestId('hook-card').textContent).toContain('changed the input of');
    expect(screen.getByTestId('hook-input').textContent).toContain('{"content":"x"}');
    expect(screen.queryByTestId('hook-said')).toBeNull();
  });
});
