import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import McpCardList from './McpCards.svelte';
import { McpCards, type FormField, type MCPRequest } from '../../lib/stores/mcp.svelte';

// The form of mcptest's "ask" tool (agent/mcp/mcptest.ProfileSchema) as
// the backend sends it.
const profile: FormField[] = [
  { name: 'age', title: 'Age', type: 'integer', required: false, default: 30, minimum: 0, maximum: 150 },
  { name: 'colour', title: 'Colour', type: 'string', required: false, default: 'g', options: [{ value: 'r', title: 'Red' }, { value: 'g', title: 'Green' }] },
  { name: 'email', title: 'Email', type: 'string', format: 'email', required: true },
  { name: 'name', title: 'Name', type: 'string', required: true, minLength: 2, maxLength: 20 },
  { name: 'news', title: 'Send news', type: 'boolean', required: false, default: true },
  { name: 'tags', title: 'Tags', type: 'array', multi: true, required: false, options: [{ value: 'a', title: 'Alpha' }, { value: 'b', title: 'Beta' }] },
];
const form: MCPRequest = { id: 'm2', kind: 'form', server: 'secured', state: 'waiting', message: 'Tell us about yourself.', mode: 'form', fields: profile };
const signin: MCPRequest = {
  id: 'm1',
  kind: 'signin',
  server: 'secured',
  state: 'waiting',
  message: 'Sign in to secured in your browser.',
  url: 'http://127.0.0.1:4000/authorize?client_id=c&state=s',
};

function setup(...events: MCPRequest[]) {
  const cards = new McpCards();
  for (const e of events) cards.apply(e);
  const props = {
    cards,
    oncancel: vi.fn(async () => {}),
    oncopy: vi.fn(async () => {}),
    onanswer: vi.fn(async () => {}),
  };
  render(McpCardList, props);
  return props;
}

describe('McpCards store', () => {
  it('keeps a card until it is done, and a bad end until dismissed', () => {
    const cards = new McpCards();
    cards.apply(signin);
    cards.apply({ ...signin, state: 'failed', url: undefined, message: 'No answer from the browser in time.' });
    expect(cards.items).toHaveLength(1);
    expect(cards.items[0]?.url).toBe(signin.url);
    expect(cards.items[0]?.message).toBe('No answer from the browser in time.');
    cards.dismiss('m1');
    cards.apply(form);
    cards.apply({ ...form, state: 'done', message: '', fields: null });
    expect(cards.items).toHaveLength(0);
  });

  it("drops a form whose conversation left the view and shows it again when it comes back", () => {
    const cards = new McpCards();
    cards.apply(signin);
    cards.apply(form);
    cards.apply({ id: form.id, kind: 'form', server: form.server, state: 'hidden', message: '' });
    expect(cards.items.map((c) => c.id)).toEqual([signin.id]);
    cards.apply(form);
    expect(cards.items.map((c) => c.id)).toEqual([signin.id, form.id]);
    expect(cards.items[1]?.fields).toHaveLength(profile.length);
  });
});

describe('SignInCard', () => {
  it('offers Copy link and Cancel while waiting', async () => {
    const { oncopy, oncancel } = setup(signin);
    expect(screen.getByRole('region', { name: 'Sign in to secured' })).toHaveTextContent('Sign in to secured in your browser.');
    await userEvent.click(screen.getByRole('button', { name: 'Copy link' }));
    expect(oncopy).toHaveBeenCalledWith(signin.url);
    expect(screen.getByRole('status')).toHaveTextContent('Link copied.');
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(oncancel).toHaveBeenCalledWith('m1');
  });

  it('says why a sign-in ended and goes when dismissed; goes at once on success', async () => {
    const { cards } = setup(signin);
    cards.apply({ ...signin, state: 'failed', message: 'No answer from the browser in time: sign-in to secured stopped.' });
    await vi.waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('No answer from the browser in time'));
    expect(screen.queryByRole('button', { name: 'Cancel' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss the sign-in to secured' }));
    expect(screen.queryByRole('region', { name: 'Sign in to secured' })).toBeNull();
    cards.apply({ ...signin, id: 'm3' });
    await vi.waitFor(() => expect(screen.getByRole('region', { name: 'Sign in to secured' })).toBeInTheDocument());
    cards.apply({ ...signin, id: 'm3', state: 'done', message: 'Signed in to secured.' });
    await vi.waitFor(() => expect(screen.queryByRole('region', { name: 'Sign in to secured' })).toBeNull());
  });
});

describe('FormCard', () => {
  it('starts with the defaults, the first field focused', async () => {
    setup(form);
    await vi.waitFor(() => expect(screen.getByLabelText('Age')).toHaveFocus());
    expect(screen.getByLabelText('Age')).toHaveValue(30);
    expect(screen.getByLabelText('Colour')).toHaveValue('g');
    expect(screen.getByLabelText('Send news')).toBeChecked();
    expect(screen.getByRole('option', { name: 'Green' })).toBeInTheDocument();
    expect(screen.getByRole('group', { name: 'Tags' })).toBeInTheDocument();
  });

  it('shows what is wrong in place, focuses it, and sends nothing', async () => {
    const { onanswer } = setup(form);
    await userEvent.clear(screen.getByLabelText('Age'));
    await userEvent.type(screen.getByLabelText('Age'), '200');
    await userEvent.type(screen.getByLabelText('Name *'), 'A');
    await userEvent.type(screen.getByLabelText('Email *'), 'ada{Enter}');
    expect(onanswer).not.toHaveBeenCalled();
    expect(screen.getByLabelText('Age')).toHaveAccessibleDescription(/Age must be at most 150\./);
    expect(screen.getByLabelText('Email *')).toHaveAccessibleDescription(/Email must be an email address/);
    expect(screen.getByLabelText('Name *')).toHaveAccessibleDescription(/Name needs at least 2 characters\./);
    expect(screen.getByLabelText('Age')).toHaveFocus();
    expect(screen.getByLabelText('Age')).toHaveAttribute('aria-invalid', 'true');
  });

  it('accepts by keyboard with typed values, the defaults and the picks', async () => {
    const { onanswer } = setup(form);
    await vi.waitFor(() => expect(screen.getByLabelText('Age')).toHaveFocus());
    await userEvent.tab(); // colour
    await userEvent.selectOptions(screen.getByLabelText('Colour'), 'r');
    await userEvent.tab(); // email
    await userEvent.keyboard('ada@example.org');
    await userEvent.tab();
    await userEvent.keyboard('Ada');
    await userEvent.tab(); // send news
    await userEvent.keyboard(' ');
    await userEvent.tab(); // Alpha
    await userEvent.keyboard(' ');
    await userEvent.click(screen.getByLabelText('Name *'));
    await userEvent.keyboard('{Enter}');
    expect(onanswer).toHaveBeenCalledWith('m2', 'accept', { age: 30, colour: 'r', email: 'ada@example.org', name: 'Ada', news: false, tags: ['a'] });
  });

  it('puts the backend refusal under its field', async () => {
    const { onanswer } = setup(form);
    onanswer.mockRejectedValueOnce(new Error('email: want an email address such as name@example.org\nsomething else'));
    await userEvent.type(screen.getByLabelText('Name *'), 'Ada');
    await userEvent.type(screen.getByLabelText('Email *'), 'ada@example.org');
    await userEvent.click(screen.getByRole('button', { name: 'Accept' }));
    await vi.waitFor(() => expect(screen.getByLabelText('Email *')).toHaveAccessibleDescription(/want an email address/));
    expect(screen.getAllByRole('alert').some((a) => a.textContent === 'something else')).toBe(true);
  });

  it('declines and cancels without checking the fields', async () => {
    const { onanswer } = setup(form);
    await userEvent.click(screen.getByRole('button', { name: 'Decline' }));
    expect(onanswer).toHaveBeenLastCalledWith('m2', 'decline', {});
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onanswer).toHaveBeenLastCalledWith('m2', 'cancel', {});
  });

  it('shows the host of a URL-mode page apart, in punycode', () => {
    setup({
      ...form,
      mode: 'url',
      fields: null,
      url: 'https://xn--mple-43d3a6i.com/verify',
      host: 'xn--mple-43d3a6i.com',
      message: 'Verify on example.com.',
    });
    expect(screen.getByTestId('form-host')).toHaveTextContent(/^xn--mple-43d3a6i\.com$/);
    expect(screen.getByText('https://xn--mple-43d3a6i.com/verify')).toBeInTheDocument();
  });

  it('says why a URL-mode page is not opened and offers no way to open it', async () => {
    const { onanswer } = setup({
      ...form,
      mode: 'url',
      fields: null,
      url: 'file:///etc/passwd',
      url_problem: 'file: links are not opened (only https://, and http:// to this computer)',
      message: 'Open this.',
    });
    expect(screen.getByRole('alert')).toHaveTextContent('file: links are not opened');
    expect(screen.queryByTestId('form-host')).toBeNull();
    const open = screen.getByRole('button', { name: 'Open the page' });
    expect(open).toBeDisabled();
    await userEvent.click(open);
    expect(onanswer).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Decline' }));
    expect(onanswer).toHaveBeenCalledWith('m2', 'decline', {});
  });

  it('opens a URL-mode page only on the user\'s Accept', async () => {
    const { onanswer } = setup({ ...form, mode: 'url', fields: null, url: 'https://example.org/confirm', message: 'Confirm on the page.' });
    expect(screen.getByText('https://example.org/confirm')).toBeInTheDocument();
    expect(onanswer).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Open the page' }));
    expect(onanswer).toHaveBeenCalledWith('m2', 'accept', {});
  });
});

describe('FormCard with invisible characters', () => {
  // A server's strings are shown as one visible line: bidi controls and
  // zero-width characters as escapes, line breaks collapsed.
  const sneaky: MCPRequest = {
    id: 'm9',
    kind: 'form',
    server: 'evil\u202e',
    state: 'waiting',
    message: 'Approve the\u200b payment?\nIgnore the line below.',
    mode: 'form',
    fields: [
      { name: 'ok', title: 'Pay \u2066100\u2069 EUR', type: 'string', required: false, description: 'Say\u200dyes\nnow' },
      { name: 'to', title: 'To', type: 'string', required: false, options: [{ value: 'a', title: 'Alice\ufeff' }] },
    ],
  };
  const raw = /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff]/;

  it('shows the title, message, labels, help and options with the characters made visible, each on one line', () => {
    setup(sneaky);
    const card = screen.getByRole('form');
    expect(card.textContent).not.toMatch(raw);
    expect(screen.getByText('evil\\u202e asks')).toBeInTheDocument();
    const message = card.querySelector('.message');
    expect(message?.textContent).toBe('Approve the\\u200b payment? Ignore the line below.');
    expect(screen.getByLabelText('Pay \\u2066100\\u2069 EUR')).toBeInTheDocument();
    expect(card).toHaveTextContent('Say\\u200dyes now');
    expect(screen.getByRole('option', { name: 'Alice\\ufeff' })).toBeInTheDocument();
  });
});
