import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import ImageView from './ImageView.svelte';
import type { Backend } from '../../lib/backend';

function fake(overrides: Partial<Backend> = {}): Backend {
  return {
    imageData: vi.fn(async () => 'data:image/png;base64,AA=='),
    openFile: vi.fn(async () => {}),
    saveImage: vi.fn(async () => '/home/u/plot copy.png'),
    copyImage: vi.fn(async () => {}),
    ...overrides,
  } as unknown as Backend;
}

describe('ImageView', () => {
  it('opens, saves and copies an image from its context menu', async () => {
    const backend = fake();
    render(ImageView, { src: 'images/plot.png', backend });
    const thumb = await screen.findByRole('button', { name: 'Enlarge image' });
    await userEvent.pointer({ keys: '[MouseRight]', target: thumb });
    expect(screen.getByRole('menu', { name: 'Image' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('menuitem', { name: 'Save image as…' }));
    expect(backend.saveImage).toHaveBeenCalledWith('images/plot.png');
    expect(await screen.findByText('Saved to /home/u/plot copy.png')).toBeInTheDocument();
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Image actions for image' }));
    await userEvent.click(screen.getByRole('menuitem', { name: 'Copy image' }));
    expect(backend.copyImage).toHaveBeenCalledWith('images/plot.png');
    expect(await screen.findByText('Image copied')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Image actions for image' }));
    await userEvent.click(screen.getByRole('menuitem', { name: 'Open in the image viewer' }));
    expect(backend.openFile).toHaveBeenCalledWith('images/plot.png');
  });

  it('offers no Open for an attached image (a data URL) and says why a copy failed', async () => {
    const backend = fake({ copyImage: vi.fn(async () => Promise.reject(new Error('images on the clipboard need the desktop app'))) });
    render(ImageView, { src: 'data:image/png;base64,AA==', backend, alt: 'attached image' });
    await userEvent.click(await screen.findByRole('button', { name: 'Image actions for attached image' }));
    expect(screen.queryByRole('menuitem', { name: /Open/ })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('menuitem', { name: 'Copy image' }));
    expect(await screen.findByText('images on the clipboard need the desktop app')).toBeInTheDocument();
    expect(backend.imageData).not.toHaveBeenCalled();
  });

  it('closes its menu with Escape', async () => {
    render(ImageView, { src: 'images/plot.png', backend: fake() });
    await userEvent.click(await screen.findByRole('button', { name: 'Image actions for image' }));
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
  });
});
