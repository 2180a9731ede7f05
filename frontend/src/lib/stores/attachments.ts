// Attachments waiting in the prompt box, and how a prompt's @references
// become image attachments.

/** An attachment before sending: a file path or a pasted image. */
export interface Draft {
  name: string;
  path?: string;
  dataUrl?: string;
  /** A data URL for the thumbnail, when one could be made. */
  preview?: string;
}

export const IMAGE_EXT = /\.(png|jpe?g|gif|webp)$/i;

/** The @references of a prompt: image files and folders. */
export function references(prompt: string): { images: string[]; dirs: string[] } {
  const images: string[] = [];
  const dirs: string[] = [];
  for (const m of prompt.matchAll(/(?:^|\s)@(\S+)/g)) {
    const ref = m[1] ?? '';
    if (ref.endsWith('/')) dirs.push(ref);
    else if (IMAGE_EXT.test(ref)) images.push(ref);
  }
  return { images, dirs };
}

export function baseName(p: string): string {
  return p.split(/[\\/]/).filter(Boolean).at(-1) ?? p;
}
