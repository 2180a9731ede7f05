import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import PromptBox from './PromptBox.svelte';

describe('PromptBox', () => {
  it('sends the trimmed text on Enter', async () => {
    const onsend = vi.fn();
    render(PromptBox, { onsend });
    await userEvent.type(screen.getByLabelText('Message to the agent'), '  list files {Enter}');
    expect(onsend).toHaveBeenCalledExactlyOnceWith('list files');
  });

  it('makes a new line on Shift+Enter instead of sending', async () => {
    const onsend = vi.fn();
    render(PromptBox, { onsend });
    const box = screen.getByLabelText<HTMLTextAreaElement>('Message to the agent');
    await userEvent.type(box, 'one{Shift>}{Enter}{/Shift}two');
    expect(onsend).not.toHaveBeenCalled();
    expect(box.value).toBe('one\ntwo');
  });

  it('does not send blank text or while disabled', async () => {
    const onsend = vi.fn();
    const { rerender } = render(PromptBox, { onsend });
    const box = screen.getByLabelText('Message to the agent');
    await userEvent.type(box, '   {Enter}');
    expect(onsend).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();

    await rerender({ onsend, disabled: true, value: 'run it' });
    await userEvent.type(box, '{Enter}');
    expect(onsend).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();
  });

  it('turns Send into Stop while a turn runs; Esc stops too', async () => {
    const onsend = vi.fn();
    const onstop = vi.fn();
    render(PromptBox, { onsend, onstop, running: true, value: 'next' });
    const box = screen.getByLabelText('Message to the agent');
    await userEvent.type(box, '{Enter}');
    expect(onsend).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Stop' }));
    await userEvent.type(box, '{Escape}');
    expect(onstop).toHaveBeenCalledTimes(2);
  });

  it('completes @paths from the workspace', async () => {
    const complete = vi.fn(async (prefix: string) =>
      prefix === 'da' ? [{ path: 'data/', dir: true, image: false }] : [{ path: 'data/plot.png', dir: false, image: true }],
    );
    render(PromptBox, { onsend: vi.fn(), complete });
    const box = screen.getByLabelText<HTMLTextAreaElement>('Message to the agent');
    await userEvent.type(box, 'show @da');
    expect(await screen.findByRole('option', { name: /data\// })).toBeInTheDocument();
    await userEvent.keyboard('{Tab}');
    await vi.waitFor(() => expect(box.value).toBe('show @data/'));
    expect(await screen.findByRole('option', { name: /plot\.png/ })).toBeInTheDocument();
  });

  it('completes /skills', async () => {
    render(PromptBox, { onsend: vi.fn(), skills: [{ name: 'plan', description: 'Plan a task' }] });
    const box = screen.getByLabelText<HTMLTextAreaElement>('Message to the agent');
    await userEvent.type(box, '/pl');
    expect(await screen.findByRole('option', { name: /plan/ })).toBeInTheDocument();
    await userEvent.keyboard('{Enter}');
    expect(box.value).toBe('/plan ');
  });

  it('shows attachments as removable thumbnails', async () => {
    render(PromptBox, { onsend: vi.fn(), attachments: [{ name: 'a.png', path: '/w/a.png' }] });
    expect(screen.getByTestId('attachment')).toHaveTextContent('a.png');
    await userEvent.click(screen.getByRole('button', { name: 'Remove a.png' }));
    expect(screen.queryByTestId('attachment')).not.toBeInTheDocument();
  });

  it('attaches a pasted image', async () => {
    render(PromptBox, { onsend: vi.fn() });
    const png = new File([new Uint8Array([137, 80, 78, 71])], 'shot.png', { type: 'image/png' });
    await fireEvent.paste(screen.getByLabelText('Message to the agent'), { clipboardData: { files: [png] } });
    expect(await screen.findByTestId('attachment')).toHaveTextContent('shot.png');
    expect(screen.getByTestId('attachment').querySelector('img')?.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
  });

  it('attaches an image copied in another program, which the page cannot read, on paste', async () => {
    const clipboardImage = vi.fn(async () => 'data:image/png;base64,AA==');
    render(PromptBox, { onsend: vi.fn(), clipboardImage });
    const box = screen.getByLabelText('Message to the agent');
    await fireEvent.paste(box, { clipboardData: { types: [], files: [], items: [] } });
    expect(clipboardImage).toHaveBeenCalled();
    expect(await screen.findByTestId('attachment')).toHaveTextContent('pasted image');
  });

  it('leaves a text paste to the text box', async () => {
    const clipboardImage = vi.fn(async () => '');
    render(PromptBox, { onsend: vi.fn(), clipboardImage });
    await fireEvent.paste(screen.getByLabelText('Message to the agent'), { clipboardData: { types: ['text/plain'], files: [], items: [] } });
    expect(clipboardImage).not.toHaveBeenCalled();
  });

  it('has an Attach button and shows the notes about files that were not attached', async () => {
    const onattach = vi.fn();
    const ondismissnotes = vi.fn();
    render(PromptBox, { onsend: vi.fn(), onattach, notes: ['notes.txt is not an image.'], ondismissnotes });
    await userEvent.click(screen.getByRole('button', { name: /Attach/ }));
    expect(onattach).toHaveBeenCalled();
    expect(screen.getByTestId('attach-notes')).toHaveTextContent('notes.txt is not an image.');
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss the notes' }));
    expect(ondismissnotes).toHaveBeenCalled();
  });

  it('completes an @file with a space after it, and a folder without', async () => {
    const complete = vi.fn(async (p: string) =>
      p === 'da' ? [{ path: 'data/', dir: true, image: false }] : [{ path: 'plot.png', dir: false, image: true }],
    );
    render(PromptBox, { onsend: vi.fn(), complete });
    const box = screen.getByLabelText<HTMLTextAreaElement>('Message to the agent');
    await userEvent.type(box, '@pl');
    await screen.findByRole('listbox', { name: 'Completions' });
    await userEvent.keyboard('{Tab}');
    expect(box.value).toBe('@plot.png ');
    await userEvent.type(box, '@da');
    await vi.waitFor(() => expect(screen.getByRole('option')).toHaveTextContent('data/'));
    await userEvent.keyboard('{Tab}');
    expect(box.value).toBe('@plot.png @data/');
  });
});

describe('PromptBox: @ for variables', () => {
  it('completes kernel variables before files, as @name', async () => {
    const completeVariables = vi.fn(async (p: string) => [{ name: 'df', type: 'pandas.DataFrame' }].filter((v) => v.name.startsWith(p)));
    const complete = vi.fn(async () => [{ path: 'data.csv', dir: false, image: false }]);
    render(PromptBox, { onsend: vi.fn(), complete, completeVariables });
    const box = screen.getByLabelText<HTMLTextAreaElement>('Message to the agent');
    await userEvent.type(box, 'plot @d');
    const options = await screen.findAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['dfvariable · pandas.DataFrame', 'data.csv']);
    await userEvent.keyboard('{Enter}');
    expect(box.value).toBe('plot @df ');
    expect(completeVariables).toHaveBeenCalledWith('d');
  });

  it('asks no variables for a path', async () => {
    const completeVariables = vi.fn(async () => []);
    render(PromptBox, { onsend: vi.fn(), complete: vi.fn(async () => []), completeVariables });
    await userEvent.type(screen.getByLabelText('Message to the agent'), 'read @src/');
    expect(completeVariables).not.toHaveBeenCalledWith('src/');
  });

  describe('MCP mentions and prompts', () => {
    const catalog = {
      resources: [
        { server: 'docs', uri: 'file:///guide.md', name: 'Guide', description: '', mime_type: '', arguments: [] },
        { server: 'docs', uri: 'repo://{owner}', name: 'Repository', description: '', mime_type: '', arguments: [{ name: 'owner', description: 'Who owns it', required: true }] },
      ],
      prompts: [
        { server: 'docs', name: 'summarise', description: 'Summarise a page', arguments: [{ name: 'page', description: '', required: true }, { name: 'tone', description: '', required: false }] },
      ],
      errors: [],
    };
    const source = () => ({
      catalog: vi.fn(async () => catalog),
      complete: vi.fn(async (_k: string, _s: string, _n: string, arg: string, value: string) =>
        arg === 'page' ? ['intro', 'install', 'index'].filter((v) => v.startsWith(value)) : ['ada', 'alan'].filter((v) => v.startsWith(value)),
      ),
      resourceURI: vi.fn(async (_t: string, v: Record<string, string>) => `repo://${v.owner}`),
    });

    it('completes @server:uri by keyboard', async () => {
      const mcp = source();
      render(PromptBox, { onsend: vi.fn(), mcp });
      const box = screen.getByLabelText<HTMLTextAreaElement>('Message to the agent');
      await userEvent.type(box, 'read @docs:fi');
      expect(await screen.findByRole('option', { name: /docs:file:\/\/\/guide\.md/ })).toBeInTheDocument();
      await userEvent.keyboard('{Tab}');
      await vi.waitFor(() => expect(box.value).toBe('read @docs:file:///guide.md '));
    });

    it('asks a template\'s variables with completion, then inserts the resource', async () => {
      const mcp = source();
      render(PromptBox, { onsend: vi.fn(), mcp });
      const box = screen.getByLabelText<HTMLTextAreaElement>('Message to the agent');
      await userEvent.type(box, 'see @docs:repo');
      await screen.findByRole('option', { name: /repo:\/\/\{owner\}/ });
      await userEvent.keyboard('{Enter}');
      const form = await screen.findByTestId('mcp-args-form');
      expect(form).toHaveTextContent('Who owns it');
      await userEvent.keyboard('a');
      expect(await screen.findByRole('option', { name: 'alan' })).toBeInTheDocument();
      await userEvent.keyboard('{ArrowDown}{ArrowDown}{Tab}{Enter}');
      await vi.waitFor(() => expect(box.value).toBe('see @docs:repo://alan '));
      expect(mcp.resourceURI).toHaveBeenCalledWith('repo://{owner}', { owner: 'alan' });
      expect(mcp.complete).toHaveBeenCalledWith('resource', 'docs', 'repo://{owner}', 'owner', 'a', {});
      expect(screen.queryByTestId('mcp-args-form')).toBeNull();
      expect(box).toHaveFocus();
    });

    it('runs /server:prompt through its argument form; a required one must be filled', async () => {
      const mcp = source();
      const onsend = vi.fn();
      render(PromptBox, { onsend, mcp });
      const box = screen.getByLabelText<HTMLTextAreaElement>('Message to the agent');
      await userEvent.type(box, '/docs:su');
      await screen.findByRole('option', { name: /\/docs:summarise/ });
      await userEvent.keyboard('{Enter}');
      await screen.findByTestId('mcp-args-form');
      await userEvent.keyboard('{Enter}');
      expect(await screen.findByRole('alert')).toHaveTextContent('Fill in page');
      await userEvent.keyboard('in');
      expect(await screen.findByRole('option', { name: 'install' })).toBeInTheDocument();
      await userEvent.keyboard('{Tab}');
      await userEvent.tab();
      await userEvent.keyboard('very dry');
      // The page already chosen goes along, so the server may narrow the tone by it.
      await vi.waitFor(() => expect(mcp.complete).toHaveBeenCalledWith('prompt', 'docs', 'summarise', 'tone', 'very dry', { page: 'intro' }));
      expect(mcp.complete).toHaveBeenCalledWith('prompt', 'docs', 'summarise', 'page', 'in', {});
      await userEvent.keyboard('{Enter}');
      await vi.waitFor(() => expect(box.value).toBe('/docs:summarise page=intro tone="very dry" '));
      expect(onsend).not.toHaveBeenCalled();
      await userEvent.keyboard('{Enter}');
      expect(onsend).toHaveBeenCalledExactlyOnceWith('/docs:summarise page=intro tone="very dry"');
    });

    it('Esc closes the form and leaves the text', async () => {
      render(PromptBox, { onsend: vi.fn(), mcp: source() });
      const box = screen.getByLabelText<HTMLTextAreaElement>('Message to the agent');
      await userEvent.type(box, '/docs:');
      await screen.findByRole('option', { name: /summarise/ });
      await userEvent.keyboard('{Enter}');
      await screen.findByTestId('mcp-args-form');
      await userEvent.keyboard('{Escape}');
      expect(screen.queryByTestId('mcp-args-form')).toBeNull();
      expect(box.value).toBe('/docs:');
    });
  });
});
