import { describe, expect, it } from 'vitest';
import { conversationKey, DraftBook, empty } from './drafts';

const held = (text: string) => ({ ...empty(), text });

describe('DraftBook', () => {
  it('gives each conversation its own draft back when it is shown again', () => {
    const b = new DraftBook();
    // What was typed before the first conversation was known stays.
    expect(b.switchTo('a', held('typed while starting'))).toBeNull();
    // Typed in a, then b is shown: b's box is empty.
    expect(b.switchTo('b', held('for a'))).toEqual(empty());
    expect(b.switchTo('a', held('for b'))).toEqual(held('for a'));
    expect(b.switchTo('b', held('for a, more'))).toEqual(held('for b'));
  });

  it('keeps the box as it is while the conversation is the same', () => {
    const b = new DraftBook();
    b.switchTo('a', empty());
    expect(b.switchTo('a', held('x'))).toBeNull();
  });

  it('gives a new conversation what is typed while it starts (Ctrl+N), and keeps the old draft', () => {
    const b = new DraftBook();
    b.switchTo('a', empty());
    // A new conversation starts: its id is not known yet.
    expect(b.switchTo('', held('left in a'))).toEqual(empty());
    // Typed while it starts, then its id arrives: the box stays.
    expect(b.switchTo('b', held('a fresh start'))).toBeNull();
    expect(b.switchTo('a', held('a fresh start'))).toEqual(held('left in a'));
  });

  it("holds a fork's prompt for the fork, not for the conversation shown", () => {
    const b = new DraftBook();
    b.switchTo('src', empty());
    expect(b.prepare('fork', held('the forked prompt'))).toBe(false);
    expect(b.switchTo('fork', held(''))).toEqual(held('the forked prompt'));
    // Back in the source, its box is empty: the fork's prompt stayed there.
    expect(b.switchTo('src', held('the forked prompt'))).toEqual(empty());
    expect(b.switchTo('fork', empty())).toEqual(held('the forked prompt'));
    expect(b.prepare('fork', held('y'))).toBe(true);
  });

  it('keys a conversation by workspace and session', () => {
    expect(conversationKey('/w', 's1')).not.toBe(conversationKey('/v', 's1'));
    expect(conversationKey('/w', '')).toBe('');
  });
});
