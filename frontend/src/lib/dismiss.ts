// A Svelte action for pop-ups (the export menu, the grants list): a click
// outside the node, or Escape, closes them.

export function dismiss(node: HTMLElement, close: (e: Event) => void) {
  // The path is the one the click took: a click on something inside that
  // the click's own handler removed (a count that changed) stays inside.
  const click = (e: MouseEvent) => {
    if (!e.composedPath().includes(node)) close(e);
  };
  const key = (e: KeyboardEvent) => {
    if (e.key === 'Escape') close(e);
  };
  window.addEventListener('click', click);
  window.addEventListener('keydown', key);
  return {
    update(next: (e: Event) => void) {
      close = next;
    },
    destroy() {
      window.removeEventListener('click', click);
      window.removeEventListener('keydown', key);
    },
  };
}
