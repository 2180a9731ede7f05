import { describe, expect, it } from 'vitest';
import { Follow } from './follow';

// A view of 500 px over 2000 px of content: the bottom is at 1500.
const H = 2000;
const C = 500;

describe('Follow', () => {
  it('stops following on a wheel notch up from the bottom and stays stopped near it', () => {
    const f = new Follow();
    f.followed(1500);
    f.movedUp();
    // Smooth scrolling moves a few pixels per frame, all within the margin.
    for (const top of [1497, 1490, 1480, 1470]) expect(f.scrolled(top, H, C)).toBe(false);
  });

  it('stops following when the view moves up above where following put it, without a wheel', () => {
    const f = new Follow();
    f.followed(1500);
    expect(f.scrolled(1100, H, C)).toBe(false);
  });

  it('keeps following when content grows below the view', () => {
    const f = new Follow();
    f.followed(1500);
    // No move: the content grew (a scroll event at the same place).
    expect(f.scrolled(1500, H + 300, C)).toBe(true);
  });

  // Sending moves the view to the bottom while the prompt box is still
  // tall; then the box (or the strip of attached images) goes, the view
  // grows, the browser moves the position up by as much, and the new
  // message arrives below in the same frame. That is no move of the user.
  it.each([
    ['a multi-line prompt: the prompt box shrinks back to one line', 120],
    ['a prompt with images: the strip of attached images goes', 88],
  ])('keeps following when sending %s', (_what, grew) => {
    const f = new Follow();
    f.followed(H - (C - grew), C - grew);
    expect(f.scrolled(H - C, H + 150, C)).toBe(true);
    // The answer that follows is followed too.
    expect(f.scrolled(H - C, H + 600, C)).toBe(true);
  });

  it('still stops following when the user moves up while the view grows', () => {
    const f = new Follow();
    f.followed(H - 400, 400);
    // The view grew by 100 px, but the position went up by 300.
    expect(f.scrolled(H - 400 - 300, H, 500)).toBe(false);
  });

  it('keeps following when the view grows taller and the browser moves it back up to the bottom', () => {
    const f = new Follow();
    f.followed(1500);
    // The approval bar below went: the view is 200 px taller.
    expect(f.scrolled(1300, H, C + 200)).toBe(true);
  });

  it('follows again only when a move down reaches the bottom', () => {
    const f = new Follow();
    f.followed(1500);
    f.movedUp();
    f.scrolled(1000, H, C);
    expect(f.scrolled(1400, H, C)).toBe(false);
    expect(f.scrolled(1480, H, C)).toBe(true);
  });

  it('does not follow again while moving up inside the margin after a move down', () => {
    const f = new Follow();
    f.followed(1500);
    f.movedUp();
    f.scrolled(1200, H, C);
    f.scrolled(1470, H, C); // down into the margin: follows
    f.movedUp();
    expect(f.scrolled(1465, H, C)).toBe(false);
  });

  // What WebKitGTK sent for one real wheel notch (xdotool click 4) at the
  // bottom of a 986 px conversation in a 444 px view: the wheel event,
  // then a first smooth-scroll frame only one pixel up.
  it('stays stopped when the first frame of a wheel notch moves a single pixel', () => {
    const f = new Follow();
    f.followed(542);
    f.movedUp();
    expect(f.scrolled(541, 986, 444)).toBe(false);
    for (const top of [536, 520, 497, 471]) expect(f.scrolled(top, 986, 444)).toBe(false);
  });

  it('stays stopped through ten fast notches that each start with a one-pixel frame', () => {
    const f = new Follow();
    f.followed(542);
    let top = 542;
    for (let i = 0; i < 10; i++) {
      f.movedUp();
      top -= 1;
      expect(f.scrolled(top, 986, 444)).toBe(false);
      top -= 40;
      expect(f.scrolled(top, 986, 444)).toBe(false);
    }
  });

  it('does not follow again on a scroll event without a move near the bottom', () => {
    const f = new Follow();
    f.followed(1500);
    f.movedUp();
    expect(f.scrolled(1480, H, C)).toBe(false);
    // Content changed height above the fold, the view did not move.
    expect(f.scrolled(1480, H, C)).toBe(false);
    expect(f.scrolled(1480.3, H, C)).toBe(false);
  });

  it('follows again when a one-pixel move down reaches the bottom', () => {
    const f = new Follow();
    f.followed(1500);
    f.movedUp();
    f.scrolled(1499, H, C);
    expect(f.scrolled(1500, H, C)).toBe(true);
  });
});
