import { describe, expect, it } from 'vitest';
import { baseName, references } from './attachments';

describe('references', () => {
  it('finds image files and folders, not other files or e-mail addresses', () => {
    expect(references('@plot.png compare with @shots/ and @notes.txt, mail a@b.png')).toEqual({
      images: ['plot.png'],
      dirs: ['shots/'],
    });
  });
  it('names files by their base name', () => {
    expect(baseName('/home/u/a b.JPG')).toBe('a b.JPG');
  });
});
