// A Svelte action for pop-ups (the export menu, the grants list): a click
// outside the node, or Escape, closes them.

export function dismiss(node: HTMLElement, close: () => void) {
  const click = (e: MouseEvent) => {
    if (!node.contains(e.target as Node)) close();
  };
  const key = (e: KeyboardEvent) => {
    if (e.key === 'Escape') close();
  };
  window.addEventListener('click', click);
  window.addEventListener('keydown', key);
  return {
    update(next: () => void) {
      close = next;
    },
    destroy() {
      window.removeEventListener('click', click);
      window.removeEventListener('keydown', key);
    },
  };
}
