import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import ContextMeter from './ContextMeter.svelte';

const meter = {
  cost: 0.0421,
  unpriced: 1,
  budget: 5,
  contextTokens: 830_000,
  contextWindow: 1_000_000,
  compactAt: 800_000,
  judgeCost: 0,
  judgeCalls: 0,
};

describe('ContextMeter', () => {
  it('shows how full the context is and the cost, and compacts on request', async () => {
    const oncompact = vi.fn();
    render(ContextMeter, { meter, busy: false, canCompact: true, oncompact });
    const button = screen.getByTestId('context-meter');
    expect(button).toHaveTextContent('83% · $0.0421');
    // Past 90 % of the compaction point the bar turns to a warning.
    expect(button).toHaveClass('high');
    await userEvent.click(button);
    const panel = screen.getByTestId('meter-panel');
    expect(panel).toHaveTextContent('830,000 of 1,000,000 tokens (83%)');
    expect(panel).toHaveTextContent('800,000 tokens (80%)');
    expect(panel).toHaveTextContent('1 call without a known price');
    expect(panel).toHaveTextContent('$5.00');
    await userEvent.click(screen.getByRole('button', { name: 'Compact now' }));
    expect(oncompact).toHaveBeenCalledOnce();
    expect(screen.queryByTestId('meter-panel')).toBeNull();
  });

  it('closes its panel on Esc (the focus back on the meter) and on a click outside', async () => {
    document.body.insertAdjacentHTML('beforeend', '<p data-testid="outside">elsewhere</p>');
    render(ContextMeter, { meter, busy: false, canCompact: true, oncompact: () => {} });
    const button = screen.getByTestId('context-meter');
    await userEvent.click(button);
    expect(screen.getByTestId('meter-panel')).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByTestId('meter-panel')).toBeNull();
    expect(button).toHaveFocus();
    await userEvent.click(button);
    await userEvent.click(screen.getByTestId('outside'));
    expect(screen.queryByTestId('meter-panel')).toBeNull();
  });

  it('counts tokens when the window is unknown and waits while a turn runs', async () => {
    render(ContextMeter, {
      meter: { cost: 0, unpriced: 3, budget: null, contextTokens: 12_345, contextWindow: 0, compactAt: 0, judgeCost: 0, judgeCalls: 0 },
      busy: true,
      canCompact: true,
      oncompact: () => {},
    });
    const button = screen.getByTestId('context-meter');
    expect(button).toHaveTextContent('12k tokens');
    await userEvent.click(button);
    expect(screen.getByTestId('meter-panel')).toHaveTextContent('window unknown');
    expect(screen.getByRole('button', { name: 'Compact now' })).toBeDisabled();
  });

  it("shows auto mode's judge on a line of its own, only once it was called", async () => {
    render(ContextMeter, { meter: { ...meter, judgeCost: 0.0125, judgeCalls: 3 }, busy: false, canCompact: true, oncompact: () => {} });
    await userEvent.click(screen.getByTestId('context-meter'));
    expect(screen.getByTestId('meter-judge')).toHaveTextContent('$0.0125 · 3 calls');
  });

  it('has no judge line before the judge was called', async () => {
    render(ContextMeter, { meter, busy: false, canCompact: true, oncompact: () => {} });
    await userEvent.click(screen.getByTestId('context-meter'));
    expect(screen.queryByTestId('meter-judge')).toBeNull();
  });

  it('is not shown before the session reports', () => {
    render(ContextMeter, { meter: null, busy: false, canCompact: false, oncompact: () => {} });
    expect(screen.queryByTestId('context-meter')).toBeNull();
  });
});
