import { describe, expect, it } from 'vitest';
import { APPROVAL_KEYS, shortcutOf, SHORTCUTS } from './keyboard';

const key = (k: string, mods: Partial<KeyboardEventInit> = {}) => new KeyboardEvent('keydown', { key: k, ...mods });
const idle = { running: false, selection: false };
const running = { running: true, selection: false };

describe('shortcutOf', () => {
  it('maps each listed shortcut to its action', () => {
    expect(shortcutOf(key('n', { ctrlKey: true }), idle)).toBe('new');
    expect(shortcutOf(key(',', { ctrlKey: true }), idle)).toBe('settings');
    expect(shortcutOf(key('l', { ctrlKey: true }), idle)).toBe('focus');
    expect(shortcutOf(key('K', { ctrlKey: true }), idle)).toBe('search');
    expect(shortcutOf(key('q', { ctrlKey: true }), idle)).toBe('quit');
    expect(shortcutOf(key('F1'), idle)).toBe('help');
    expect(shortcutOf(key('/', { ctrlKey: true }), idle)).toBe('help');
  });

  it('stops with Esc while running, else Esc goes to the message box', () => {
    expect(shortcutOf(key('Escape'), running)).toBe('stop');
    expect(shortcutOf(key('Escape'), idle)).toBe('focus');
  });

  it('stops with Ctrl+C only while running and when nothing is selected', () => {
    expect(shortcutOf(key('c', { ctrlKey: true }), running)).toBe('stop');
    expect(shortcutOf(key('c', { ctrlKey: true }), { running: true, selection: true })).toBeNull();
    expect(shortcutOf(key('c', { ctrlKey: true }), idle)).toBeNull();
  });

  it('leaves plain typing and other combinations alone', () => {
    expect(shortcutOf(key('n'), idle)).toBeNull();
    expect(shortcutOf(key('n', { ctrlKey: true, shiftKey: true }), idle)).toBeNull();
    expect(shortcutOf(key('n', { ctrlKey: true, altKey: true }), idle)).toBeNull();
  });

  it('lists every action in the sheet', () => {
    expect(SHORTCUTS.map((s) => s.id).sort()).toEqual(['focus', 'help', 'new', 'quit', 'search', 'settings', 'stop']);
  });
});

describe('APPROVAL_KEYS', () => {
  it("lists the approval bar's e (Edit)", () => {
    expect(APPROVAL_KEYS.some((k) => k.keys.includes('e') && k.description.startsWith('Edit'))).toBe(true);
  });
});
