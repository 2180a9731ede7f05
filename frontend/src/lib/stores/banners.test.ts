import { describe, expect, it } from 'vitest';
import { Banners } from './banners.svelte';

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

  it('takes the message of an Error', () => {
    const b = new Banners();
    b.error(new Error('no API key: set GEMINI_API_KEY'));
    expect(b.items[0]).toMatchObject({ kind: 'error', message: 'no API key: set GEMINI_API_KEY' });
  });
});
