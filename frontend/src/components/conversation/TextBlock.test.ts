import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import TextBlock from './TextBlock.svelte';

describe('TextBlock', () => {
  it("shows a remote image as a link with the app's image icon and a name in words", () => {
    render(TextBlock, { item: { kind: 'response', id: 'r1', text: 'See ![chart](https://example.org/c.png).', done: true } });
    const link = screen.getByRole('link', { name: 'image: chart (remote, not loaded): opens in your browser' });
    // The icon is the bundled SVG, hidden from screen readers; no emoji,
    // which shows as a blank box without an emoji font.
    const icon = link.querySelector('svg[data-icon="image"]');
    expect(icon).not.toBeNull();
    expect(icon).toHaveAttribute('aria-hidden', 'true');
    expect(link.textContent).not.toMatch(/\p{Extended_Pictographic}/u);
    expect(link).toHaveTextContent('image: chart (remote, not loaded)');
  });
});
