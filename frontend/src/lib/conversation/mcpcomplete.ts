// What the prompt box offers of MCP servers: @server:uri mentions of
// resources (a template asks for its variables first) and /server:prompt
// commands (a prompt with arguments asks for them first). The backend
// expands both when the prompt is sent, as the terminal does.
import type { MCPArgument, MCPCatalog, MCPPrompt, MCPResource } from '../backend';

/** A choice in the completion list. */
export interface McpChoice {
  label: string;
  detail: string;
  /** Text put in place of the typed token, or null when a form must ask first. */
  insert: string | null;
  /** What the form asks for, when insert is null. */
  form: McpForm | null;
}

/** The argument form of a prompt or a resource template. */
export interface McpForm {
  kind: 'prompt' | 'resource';
  server: string;
  /** The prompt's name, or the template. */
  name: string;
  title: string;
  args: MCPArgument[];
}

const MAX_CHOICES = 30;

/** The resources and templates that @prefix may mean: server:uri begins
 * with it, or the name contains it. */
export function resourceChoices(cat: MCPCatalog | null, prefix: string): McpChoice[] {
  if (!cat) return [];
  const p = prefix.toLowerCase();
  return cat.resources
    .filter((r) => `${r.server}:${r.uri}`.toLowerCase().startsWith(p) || (p !== '' && r.name.toLowerCase().includes(p)))
    .slice(0, MAX_CHOICES)
    .map((r) => resourceChoice(r));
}

function resourceChoice(r: MCPResource): McpChoice {
  const label = `${r.server}:${r.uri}`;
  if (r.arguments && r.arguments.length > 0) {
    return {
      label,
      detail: `template · ${r.name}`,
      insert: null,
      form: { kind: 'resource', server: r.server, name: r.uri, title: `@${label}`, args: r.arguments },
    };
  }
  return { label, detail: `resource · ${r.name}`, insert: `@${label} `, form: null };
}

/** The prompts that /typed may name: server:prompt begins with it. */
export function promptChoices(cat: MCPCatalog | null, typed: string): McpChoice[] {
  if (!cat) return [];
  const t = typed.toLowerCase();
  return cat.prompts
    .filter((p) => `${p.server}:${p.name}`.toLowerCase().startsWith(t) || (t !== '' && p.name.toLowerCase().startsWith(t)))
    .slice(0, MAX_CHOICES)
    .map((p) => promptChoice(p));
}

function promptChoice(p: MCPPrompt): McpChoice {
  const label = `/${p.server}:${p.name}`;
  const detail = `prompt · ${p.description}`;
  if (p.arguments && p.arguments.length > 0) {
    return { label, detail, insert: null, form: { kind: 'prompt', server: p.server, name: p.name, title: label, args: p.arguments } };
  }
  return { label, detail, insert: `${label} `, form: null };
}

/** The slash command for a prompt and its argument values, as the backend
 * reads it (key=value, quoted when the value has spaces). Empty values are
 * left out. A value with a double quote cannot be written: the error says so. */
export function slashCommand(form: McpForm, values: Record<string, string>): string {
  let out = `/${form.server}:${form.name}`;
  for (const a of form.args) {
    const v = values[a.name] ?? '';
    if (v === '') continue;
    if (v.includes('"')) throw new Error(`The value of ${a.name} cannot hold a double quote (")`);
    out += /\s/.test(v) ? ` ${a.name}="${v}"` : ` ${a.name}=${v}`;
  }
  return out;
}

/** The required arguments left empty. */
export function missing(form: McpForm, values: Record<string, string>): string[] {
  return form.args.filter((a) => a.required && (values[a.name] ?? '').trim() === '').map((a) => a.name);
}
