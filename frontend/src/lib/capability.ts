// The window's capability: a random value the Go side puts into the app's
// index.html (<meta name="freeact-capability">, app/windowguard.go) and
// that every call of a bound Go method must carry; the Go side refuses a
// call without it (app/internal/webview CheckCall). Only the app's own
// page holds it. It is read once, the tag removed, and added to each call
// Wails' runtime sends (its 'C' and 'c' messages), so the generated
// bindings stay the one door to the backend.

export const capabilityMeta = 'freeact-capability';

type Invoke = (message: string) => void;

/** Reads the capability from doc (once: the tag goes) and makes win's
 * WailsInvoke add it to every call; does nothing without either. */
export function carryCapability(win: Window, doc: Document): void {
  const meta = doc.querySelector<HTMLMetaElement>(`meta[name="${capabilityMeta}"]`);
  const token = meta?.content ?? '';
  meta?.remove();
  const w = win as unknown as { WailsInvoke?: Invoke };
  const invoke = w.WailsInvoke;
  if (!token || typeof invoke !== 'function') return;
  w.WailsInvoke = (message: string) => invoke(withCapability(message, token));
}

/** A call message ('C' or 'c' and its JSON) with the capability added;
 * any other message unchanged. */
export function withCapability(message: string, token: string): string {
  const kind = message[0];
  if (kind !== 'C' && kind !== 'c') return message;
  try {
    const payload = JSON.parse(message.slice(1)) as Record<string, unknown>;
    return kind + JSON.stringify({ ...payload, capability: token });
  } catch {
    return message;
  }
}
