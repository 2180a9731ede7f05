import { describe, expect, it, vi } from 'vitest';
import { carryCapability, withCapability } from './capability';

describe('carryCapability', () => {
  it('adds the page capability to every call and removes its tag', () => {
    document.head.insertAdjacentHTML('afterbegin', '<meta name="freeact-capability" content="tok123">');
    const sent: string[] = [];
    const w = { WailsInvoke: vi.fn((m: string) => sent.push(m)) } as unknown as Window;
    carryCapability(w, document);
    expect(document.querySelector('meta[name="freeact-capability"]')).toBeNull();
    const invoke = (w as unknown as { WailsInvoke: (m: string) => void }).WailsInvoke;
    invoke('C' + JSON.stringify({ name: 'desktop.Desktop.RunCell', args: ['x'], callbackID: 'cb-1' }));
    invoke('EE{"name":"x"}');
    const [call, event] = sent as [string, string];
    expect(JSON.parse(call.slice(1))).toEqual({ name: 'desktop.Desktop.RunCell', args: ['x'], callbackID: 'cb-1', capability: 'tok123' });
    expect(call[0]).toBe('C');
    expect(event).toBe('EE{"name":"x"}');
  });

  it('leaves WailsInvoke alone where the page holds no capability', () => {
    const invoke = vi.fn();
    const w = { WailsInvoke: invoke } as unknown as Window;
    carryCapability(w, document);
    expect((w as unknown as { WailsInvoke: unknown }).WailsInvoke).toBe(invoke);
  });

  it('changes a call by id too, and nothing it cannot read', () => {
    expect(JSON.parse(withCapability('c{"id":3}', 't').slice(1))).toEqual({ id: 3, capability: 't' });
    expect(withCapability('C{not json', 't')).toBe('C{not json');
    expect(withCapability('Q', 't')).toBe('Q');
  });
});
