/** Whether the conversation follows new output at the bottom, decided
 * from the scroll positions the user moves it through.
 *
 * Only a move down that reaches the bottom follows again; a move up never
 * does, however close to the bottom it stays (a wheel notch from the
 * bottom moves less than the "near the bottom" margin, and following again
 * there would snap the view back down). */
export class Follow {
  /** Whether new output scrolls the view down. */
  on = true;
  /** The last scroll position seen. */
  private last = 0;
  /** Where following last put the view: content that grows below it makes
   * the view look scrolled up, but only a move above it stops following. */
  private auto = 0;

  /** Near the bottom, in pixels: a move down that ends this close follows. */
  static readonly margin = 40;

  /** A scroll event: the view's position now. Returns whether to follow. */
  scrolled(top: number, height: number, client: number): boolean {
    const up = top < this.last - 1;
    this.last = top;
    const atBottom = height - top - client < 2;
    if (up) {
      // Up to the very bottom is no move of the user's: the view grew (a
      // bar below it went) and the browser moved it back inside.
      if (top < this.auto - 4 && !atBottom) this.on = false;
    } else if (height - top - client < Follow.margin) {
      this.on = true;
    }
    return this.on;
  }

  /** A wheel turned (or a key pressed) towards the top: stop following
   * before the scroll event says where the view went. */
  movedUp(): void {
    this.on = false;
  }

  /** Following put the view at top (the bottom). */
  followed(top: number): void {
    this.on = true;
    this.auto = top;
    this.last = top;
  }
}
