import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import NumberInput from './NumberInput.svelte';
import TextInput from './TextInput.svelte';
import Switch from './Switch.svelte';
import KeyValueTable from './KeyValueTable.svelte';
import StringList from './StringList.svelte';
import JsonInput from './JsonInput.svelte';
import { ENV_NAME } from '../words';

const seconds = { min: 0, min_exclusive: true, unit: 'seconds' };

describe('NumberInput', () => {
  function setup(value = '300', extra: Record<string, unknown> = {}) {
    const onchange = vi.fn();
    const onlocal = vi.fn();
    render(NumberInput, { id: 'n', value, bounds: seconds, want: 'a positive number of seconds, or null for no limit', nullable: true, nullLabel: 'no limit', onchange, onlocal, ...extra });
    return { onchange, onlocal, input: screen.getByRole<HTMLInputElement>('textbox') };
  }

  it('explains words typed for a number and never makes them a value', async () => {
    const { onchange, onlocal, input } = setup();
    await userEvent.clear(input);
    await userEvent.type(input, 'sixty');
    expect(onlocal).toHaveBeenLastCalledWith('“sixty” is not a number: type the seconds in digits, e.g. 1.5.');
    expect(onchange).not.toHaveBeenCalledWith(expect.stringContaining('s'));
    expect(input).toHaveAttribute('aria-invalid', 'true');
    await userEvent.clear(input);
    await userEvent.type(input, '60');
    expect(onchange).toHaveBeenLastCalledWith('60');
    expect(input).toHaveAttribute('aria-invalid', 'false');
    // The field's error goes with the fix.
    expect(onlocal).toHaveBeenLastCalledWith(null);
  });

  it('refuses a value outside the bounds with the backend’s words', async () => {
    const { onchange, onlocal, input } = setup();
    await userEvent.clear(input);
    await userEvent.type(input, '0');
    expect(onlocal).toHaveBeenLastCalledWith('0 is out of range: want a positive number of seconds.');
    expect(onchange).not.toHaveBeenCalled();
  });

  it('asks a whole number of an integer key', async () => {
    const onlocal = vi.fn();
    render(NumberInput, { id: 'n', value: '5', bounds: { min: 1, integer: true, unit: 'subagents' }, want: 'a whole number of subagents, 1 or more', onchange: vi.fn(), onlocal });
    const input = screen.getByRole('textbox');
    expect(input).toHaveAttribute('inputmode', 'numeric');
    await userEvent.clear(input);
    await userEvent.type(input, '2.5');
    expect(onlocal).toHaveBeenLastCalledWith('2.5 is not a whole number: type the subagents without a fraction.');
    expect(screen.queryByRole('checkbox')).toBeNull();
  });

  it('switches to "no limit" and back to the last number', async () => {
    const onchange = vi.fn();
    const { rerender } = render(NumberInput, {
      id: 'n',
      value: '90',
      bounds: seconds,
      want: 'x',
      nullable: true,
      nullLabel: 'no limit',
      onchange,
      onlocal: vi.fn(),
    });
    expect(screen.getByText('seconds')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('checkbox', { name: 'No limit' }));
    expect(onchange).toHaveBeenLastCalledWith('null');
    await rerender({ value: 'null' });
    expect(screen.getByRole('textbox')).toBeDisabled();
    await userEvent.click(screen.getByRole('checkbox', { name: 'No limit' }));
    expect(onchange).toHaveBeenLastCalledWith('90');
  });
});

describe('TextInput', () => {
  it('makes an empty nullable field null and masks a secret until shown', async () => {
    const onchange = vi.fn();
    render(TextInput, { id: 't', value: '"tok"', kind: 'secret', nullable: true, nullLabel: 'no token', onchange });
    const input = document.getElementById('t') as HTMLInputElement;
    expect(input.type).toBe('password');
    await userEvent.click(screen.getByRole('button', { name: 'Show' }));
    expect(input.type).toBe('text');
    await userEvent.clear(input);
    expect(onchange).toHaveBeenLastCalledWith('null');
    await userEvent.type(input, 'x');
    expect(onchange).toHaveBeenLastCalledWith('"x"');
  });
});

describe('Switch', () => {
  it('turns a key on and off, and offers "automatic" where null is allowed', async () => {
    const onchange = vi.fn();
    const { unmount } = render(Switch, { id: 's', value: 'true', onchange });
    const sw = screen.getByRole('switch');
    expect(sw).toBeChecked();
    await userEvent.click(sw);
    expect(onchange).toHaveBeenLastCalledWith('false');
    unmount();
    render(Switch, { id: 's2', value: 'null', nullable: true, nullLabel: 'automatic', onchange });
    const select = screen.getByRole('combobox');
    expect(select).toHaveValue('null');
    await userEvent.selectOptions(select, 'On');
    expect(onchange).toHaveBeenLastCalledWith('true');
  });
});

describe('KeyValueTable', () => {
  it('adds variables, checks their names and lists the ${VAR} it uses', async () => {
    const onchange = vi.fn();
    const onlocal = vi.fn();
    render(KeyValueTable, {
      id: 'env',
      label: 'Environment variables',
      value: { A: '1' },
      nameRule: { pattern: ENV_NAME, words: 'a variable name' },
      expands: true,
      onchange,
      onlocal,
    });
    await userEvent.click(screen.getByRole('button', { name: 'Add environment variable' }));
    const name = screen.getByLabelText('Environment variables: name 2');
    expect(name).toHaveFocus();
    await userEvent.type(name, '2BAD');
    expect(screen.getByText('“2BAD” is not a variable name.')).toBeInTheDocument();
    expect(onlocal).toHaveBeenLastCalledWith('“2BAD” is not a variable name.');
    await userEvent.clear(name);
    await userEvent.type(name, 'TOKEN');
    await userEvent.type(screen.getByLabelText('Environment variables: value of TOKEN'), '${{GITHUB_TOKEN}');
    expect(onchange).toHaveBeenLastCalledWith({ A: '1', TOKEN: '${GITHUB_TOKEN}' });
    expect(onlocal).toHaveBeenLastCalledWith(null);
    expect(screen.getByText('GITHUB_TOKEN')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Environment variables: name 1'), '{Backspace}TOKEN');
    expect(screen.getByText('“TOKEN” is given twice.')).toBeInTheDocument();
    await userEvent.click(screen.getAllByRole('button', { name: 'Remove TOKEN' })[1]!);
    expect(screen.queryByText('“TOKEN” is given twice.')).toBeNull();
    expect(onchange).toHaveBeenLastCalledWith({ TOKEN: '1' });
  });
});

describe('StringList', () => {
  it('keeps the order, adds and removes items', async () => {
    const onchange = vi.fn();
    render(StringList, { id: 'args', label: 'Arguments', item: 'argument', value: ['-y', 'server'], onchange });
    await userEvent.click(screen.getByRole('button', { name: 'Add argument' }));
    await userEvent.type(screen.getByLabelText('Arguments: argument 3'), '/tmp');
    expect(onchange).toHaveBeenLastCalledWith(['-y', 'server', '/tmp']);
    await userEvent.click(screen.getByRole('button', { name: 'Remove argument 1' }));
    expect(onchange).toHaveBeenLastCalledWith(['server', '/tmp']);
  });
});

describe('JsonInput', () => {
  it('explains text that is no JSON and passes valid JSON on', async () => {
    const onchange = vi.fn();
    const onlocal = vi.fn();
    render(JsonInput, { id: 'j', value: '{}', onchange, onlocal });
    const box = screen.getByRole('textbox');
    await userEvent.clear(box);
    await userEvent.type(box, '{{"a": ');
    expect(onlocal).toHaveBeenLastCalledWith(expect.stringContaining('Not valid JSON'));
    await userEvent.type(box, '1}');
    expect(onchange).toHaveBeenLastCalledWith('{"a": 1}');
  });
});
