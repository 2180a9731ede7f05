/** Whether the conversation follows new output at the bottom, decided
 * from the scroll positions the user moves it through.
 *
 * Only a move down that reaches the bottom follows again; a move up never
 * does, however small or close to the bottom it is. WebKit's smooth
 * scrolling moves the first frame of a wheel notch by a single pixel: a
 * rule that took that for "no move" and followed again within the "near
 * the bottom" margin snapped the view back down after every notch. */
export class Follow {
  /** Whether new output scrolls the view down. */
  on = true;
  /** The last scroll position seen. */
  private last = 0;
  /** Where following last put the view: content that grows below it makes
   * the view look scrolled up, but only a move above it stops following. */
  private auto = 0;
  /** The view's height when last seen (0: not yet). */
  private client = 0;

  /** Near the bottom, in pixels: a move down that ends this close follows. */
  static readonly margin = 40;
  /** Scroll positions closer than this are the same (sub-pixel rounding). */
  private static readonly still = 0.5;

  /** A scroll event: the view's position now. Returns whether to follow. */
  scrolled(top: number, height: number, client: number): boolean {
    const move = top - this.last;
    const grew = this.client > 0 ? client - this.client : 0;
    this.last = top;
    this.client = client;
    const gap = height - top - client;
    if (move < -Follow.still && grew > 0 && -move <= grew + Follow.still) {
      // The view grew taller (the prompt box of a multi-line prompt, or
      // the strip of attached images, went as the prompt was sent) and
      // the browser moved the position up by as much: no move of the
      // user's, even when the new message made the content taller too.
      if (this.on) this.auto = top;
    } else if (move < -Follow.still) {
      // Up to the very bottom is no move of the user's: the view grew (a
      // bar below it went) and the browser moved it back inside.
      if (top < this.auto - 4 && gap >= 2) this.on = false;
    } else if (move > Follow.still && gap < Follow.margin) {
      this.on = true;
    }
    return this.on;
  }

  /** A wheel turned (or a key pressed) towards the top: stop following
   * before the scroll event says where the view went. */
  movedUp(): void {
    this.on = false;
  }

  /** Following put the view at top (the bottom); client is the view's
   * height then. */
  followed(top: number, client = 0): void {
    this.on = true;
    this.auto = top;
    this.last = top;
    if (client > 0) this.client = client;
  }
}
