// Whether a drag is over the window, from its dragenter and dragleave
// events: each element entered counts up and each left counts down (the
// next element's dragenter comes before the last one's dragleave), so the
// drag is over the window while the count is above zero. A drag held
// still sends no events, so no timer can tell; the drop, or the drag's
// end, resets the count.
export class DragDepth {
  private depth = 0;

  /** dragenter: one more element entered. */
  enter(): void {
    this.depth++;
  }

  /** dragover: the pointer is over the window, whatever was counted (a
   * drag that began inside had no dragenter). */
  moved(): void {
    if (this.depth === 0) this.depth = 1;
  }

  /** dragleave: an element was left. */
  leave(): void {
    this.depth = Math.max(0, this.depth - 1);
  }

  reset(): void {
    this.depth = 0;
  }

  get over(): boolean {
    return this.depth > 0;
  }
}
