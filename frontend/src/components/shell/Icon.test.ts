import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import Icon from './Icon.svelte';
import { ICONS, type IconName } from '../../lib/icons';

describe('Icon', () => {
  it('draws every icon as an SVG hidden from the accessibility tree, with no text glyph', () => {
    for (const name of Object.keys(ICONS) as IconName[]) {
      const { container, unmount } = render(Icon, { name });
      const svg = container.querySelector('svg');
      expect(svg, name).not.toBeNull();
      expect(svg).toHaveAttribute('aria-hidden', 'true');
      expect(svg!.querySelectorAll('path').length).toBe(ICONS[name].length);
      expect(container.textContent?.trim()).toBe('');
      unmount();
    }
  });
});
