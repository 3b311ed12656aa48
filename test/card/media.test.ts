/** card/media.ts: hasMediaType over a list's keys answers as mediaTypeIn, which is sameMediaType over the list. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasMediaType, mediaTypeIn, mediaTypeKeys, sameMediaType } from '../../src/card/media.js';

const mediaType = fc.oneof(
  fc.constantFrom(
    'text',
    'Text/Plain',
    'text/plain',
    'text/plain; charset=utf-8',
    'application/json',
    'APPLICATION/JSON ',
    'image/*',
  ),
  fc.string({ maxLength: 12 }),
);

describe('mediaTypeIn and hasMediaType', () => {
  it('are some(sameMediaType) over the list, asked once or again with the same keys', () => {
    fc.assert(
      fc.property(fc.array(mediaType, { maxLength: 5 }), mediaType, (modes, type) => {
        const expected = modes.some((m) => sameMediaType(m, type));
        const keys = mediaTypeKeys(modes);
        expect(mediaTypeIn(modes, type)).toBe(expected);
        expect(hasMediaType(keys, type)).toBe(expected);
        expect(hasMediaType(keys, type)).toBe(expected);
      }),
    );
  });

  it('mediaTypeIn reads the list afresh each time (a changed list is never answered from old keys)', () => {
    const modes = ['text/plain'];
    expect(mediaTypeIn(modes, 'application/json')).toBe(false);
    modes.push('application/json');
    expect(mediaTypeIn(modes, 'application/json')).toBe(true);
  });
});
