// What lies above the conversation (banners, the kernel's progress, its
// error) shrinks when something in it goes: a notice expires, the kernel
// becomes ready. Everything below moves up, and a click aimed at a
// conversation in the session list lands on the one below it. While the
// pointer is below (held), the area keeps the tallest height it had; it
// may grow, and shrinks once the pointer leaves.

/** Keeps node at least as tall as it has been while held is true. */
export function reserve(node: HTMLElement, held: boolean) {
  let floor = 0;
  const keep = () => {
    floor = Math.max(floor, node.getBoundingClientRect().height);
    node.style.minHeight = `${floor}px`;
  };
  const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => held && keep());
  observer?.observe(node);
  const set = (h: boolean) => {
    held = h;
    if (held) keep();
    else {
      floor = 0;
      node.style.minHeight = '';
    }
  };
  set(held);
  return {
    update: set,
    destroy: () => observer?.disconnect(),
  };
}
