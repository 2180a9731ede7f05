import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import EmptyConversation from './EmptyConversation.svelte';

describe('EmptyConversation', () => {
  it('says code runs on this machine when the kernel is local', () => {
    render(EmptyConversation, { props: { onpick: () => {} } });
    expect(screen.getByText(/runs on this machine/)).toBeTruthy();
  });

  it('names the Jupyter server code runs on when the workspace is remote', () => {
    render(EmptyConversation, { props: { onpick: () => {}, remoteHost: 'hub.example.org' } });
    expect(screen.getByText(/runs on the Jupyter server at hub\.example\.org/)).toBeTruthy();
    expect(screen.queryByText(/on this machine/)).toBeNull();
  });
});
