import { describe, expect, it } from 'vitest';
import { Banners, MAX_BANNERS } from './banners.svelte';

describe('Banners', () => {
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
});
