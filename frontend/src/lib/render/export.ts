// A conversation as a Markdown document or a self-contained HTML page.
import type { ConversationState, Item } from '../conversation/reducer';
import { formatUSD } from './format';
import { escapeHTML, renderMarkdown } from './markdown';

function fence(text: string, lang = ''): string {
  const ticks = text.includes('```') ? '````' : '```';
  return `${ticks}${lang}\n${text.replace(/\n$/, '')}\n${ticks}`;
}

function itemMarkdown(it: Item, s: ConversationState, depth: number): string[] {
  switch (it.kind) {
    case 'user':
      return [`## You\n\n${it.text}`, ...it.images.map((_, i) => `*(image ${i + 1} attached)*`)];
    case 'thoughts':
      return [`<details><summary>Thoughts</summary>\n\n${it.text}\n\n</details>`];
    case 'response':
      return [it.text];
    case 'tool': {
      const out: string[] = [];
      if (it.call?.type === 'CodeAction') out.push(`**Code action** (${it.status})\n\n${fence(it.call.code, 'python')}`);
      else out.push(`**${it.name}** (${it.status})${it.args ? `\n\n${fence(JSON.stringify(it.args, null, 2), 'json')}` : ''}`);
      for (const sh of it.shell) out.push(`\`$ ${sh.command}\` (${sh.status})`);
      const text = it.output || it.result || '';
      if (text) out.push(fence(text));
      for (const im of it.images) out.push(`![image](${im})`);
      return out;
    }
    case 'lane':
      return [
        `### Subagent ${it.id}`,
        ...(s.lanes[it.id]?.items ?? []).flatMap((x) => itemMarkdown(x, s, depth + 1)).map((l) => l.replace(/^/gm, '> ')),
      ];
    case 'usage':
      return [
        `*${it.input} input · ${it.output} output · ${it.thinking} thinking tokens${it.cost !== null ? ` · ${formatUSD(it.cost)}` : ''}*`,
      ];
    case 'notice':
      return [`> ${it.text}`];
    case 'compaction':
      return it.summary === null
        ? []
        : [`<details><summary>Earlier conversation compacted (${it.messages} messages)</summary>\n\n${it.summary}\n\n</details>`];
    case 'changes':
      return [`*Files changed: ${it.files.map((f) => `${f.path} (${f.status})`).join(', ')}${it.revertedBy ? ' — reverted' : ''}*`];
    case 'revert':
      return [`*${it.label}: ${it.files.map((f) => f.path).join(', ')}${it.undoneBy ? ' — undone' : ''}*`];
  }
}

export function toMarkdown(s: ConversationState, title: string): string {
  return [`# ${title}`, ...s.items.flatMap((it) => itemMarkdown(it, s, 0))].join('\n\n') + '\n';
}

export function toHTML(s: ConversationState, title: string): string {
  const body = renderMarkdown(toMarkdown(s, title));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHTML(title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:860px;margin:2em auto;padding:0 1em;color:#1c1c1a}
pre{background:#f1f1ef;padding:.7em 1em;overflow:auto;border-radius:8px}blockquote{border-left:3px solid #8b87f5;margin-left:0;padding-left:1em}</style>
</head><body>${body}</body></html>
`;
}
