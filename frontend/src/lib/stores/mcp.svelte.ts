// The MCP cards of the conversation: a server's sign-in ("Sign in to
// NAME") and its forms (elicitation), as the backend's mcp:request events
// say. A card shows while it waits; one that ended badly (cancelled,
// failed, timed out) stays with its message until dismissed; one that
// ended well goes. A form belongs to its conversation: when that one
// leaves the view its cards go ('hidden') and come back ('waiting') with
// it; a sign-in is app-wide and stays.

/** A field of a server's form (adapter.FormField). */
export interface FormField {
  name: string;
  title?: string;
  description?: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  format?: string;
  required: boolean;
  default?: unknown;
  options?: { value: string; title: string }[] | null;
  multi?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

/** The payload of an mcp:request event (desktop.MCPRequest). */
export interface MCPRequest {
  id: string;
  kind: 'signin' | 'form';
  server: string;
  /** 'hidden': its conversation left the view (the card goes, and is
   * sent again, waiting, when the conversation comes back). */
  state: 'waiting' | 'done' | 'cancelled' | 'failed' | 'hidden';
  message: string;
  url?: string;
  /** The host url leads to, in ASCII (punycode for an international
   * name), to show apart; absent when the URL is not opened. */
  host?: string;
  /** Why url is not opened (not https, a user name before the host...). */
  url_problem?: string;
  mode?: 'form' | 'url';
  fields?: FormField[] | null;
}

export class McpCards {
  items: MCPRequest[] = $state([]);

  /** Takes an event: a new card, or the end of one. */
  apply(r: MCPRequest) {
    const old = this.items.find((c) => c.id === r.id);
    if (r.state === 'done' || r.state === 'hidden' || (old === undefined && r.state !== 'waiting' && r.message === '')) {
      this.items = this.items.filter((c) => c.id !== r.id);
      return;
    }
    // An end keeps what the card showed (its link, its fields).
    const card = old ? { ...old, state: r.state, message: r.message || old.message } : r;
    this.items = old ? this.items.map((c) => (c.id === r.id ? card : c)) : [...this.items, card];
  }

  dismiss(id: string) {
    this.items = this.items.filter((c) => c.id !== id);
  }
}
