import { describe, expect, it, vi } from 'vitest';
import { Banners, MAX_BANNERS, NOTICE_MS } from './banners.svelte';

describe('Banners', () => {
  it('shows one notice at a time, in its own conversation only, and lets it expire', () => {
    vi.useFakeTimers();
    try {
      const b = new Banners();
      b.push('error', 'the kernel died', 'kernel');
      b.notify('Created .freeact/', 'ws\ns1');
      b.notify('Forked a new session', 'ws\ns2');
      b.notify('Exported to a.ipynb', 'ws\ns2');
      expect(b.shownIn('ws\ns2').map((i) => i.message)).toEqual(['the kernel died', 'Exported to a.ipynb']);
      // Another conversation shows the window's banners, not the notice.
      expect(b.shownIn('ws\ns1').map((i) => i.message)).toEqual(['the kernel died']);
      // It goes a while after it was first shown, not before.
      vi.advanceTimersByTime(NOTICE_MS);
      expect(b.shownIn('ws\ns2')).toHaveLength(2);
      b.shown(b.shownIn('ws\ns2'));
      vi.advanceTimersByTime(NOTICE_MS - 1);
      expect(b.shownIn('ws\ns2')).toHaveLength(2);
      vi.advanceTimersByTime(1);
      expect(b.shownIn('ws\ns2').map((i) => i.message)).toEqual(['the kernel died']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows, folds a repeat, and dismisses', () => {
    const b = new Banners();
    const first = b.push('error', 'kernel died');
    expect(b.push('error', 'kernel died')).toBe(first);
    const second = b.push('info', 'kernel ready');
    expect(b.items.map((i) => i.message)).toEqual(['kernel died', 'kernel ready']);
    b.dismiss(first);
    expect(b.items.map((i) => i.id)).toEqual([second]);
  });

  it('never shows the same message twice, even with others between', () => {
    const b = new Banners();
    b.push('error', 'a');
    b.push('error', 'b');
    b.push('error', 'a');
    expect(b.items.map((i) => i.message)).toEqual(['b', 'a']);
  });

  it('replaces the banner of a cause and clears it when the cause is gone', () => {
    const b = new Banners();
    b.push('error', 'send failed: kernel starting', 'send');
    b.push('info', 'saved');
    b.push('error', 'send failed: turn running', 'send');
    expect(b.items.map((i) => i.message)).toEqual(['saved', 'send failed: turn running']);
    b.clear('send');
    expect(b.items.map((i) => i.message)).toEqual(['saved']);
  });

  it('keeps only the newest few', () => {
    const b = new Banners();
    for (let i = 0; i < MAX_BANNERS + 2; i++) b.push('error', `error ${i}`);
    expect(b.items).toHaveLength(MAX_BANNERS);
    expect(b.items.at(-1)?.message).toBe(`error ${MAX_BANNERS + 1}`);
  });

  it('takes the message of an Error', () => {
    const b = new Banners();
    b.error(new Error('no API key: set GEMINI_API_KEY'));
    expect(b.items[0]).toMatchObject({ kind: 'error', message: 'no API key: set GEMINI_API_KEY' });
  });

  it('ends the error of an action when a later try of it succeeds', () => {
    const b = new Banners();
    b.push('error', 'the kernel died', 'kernel');
    b.error(new Error('there is no session to export'), 'export');
    b.notify('Exported to /tmp/a.md', 'ws\ns1', 'export');
    expect(b.shownIn('ws\ns1').map((i) => i.message)).toEqual(['the kernel died', 'Exported to /tmp/a.md']);
    b.error(new Error('a turn is running: stop it before forking'), 'fork');
    b.notify('Forked a new session before prompt 2', 'ws\ns2', 'fork');
    expect(b.shownIn('ws\ns2').map((i) => i.message)).toEqual(['the kernel died', 'Forked a new session before prompt 2']);
  });
});
