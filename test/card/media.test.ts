/** card/media.ts: mediaTypeIn answers as sameMediaType over the list, for frozen lists (keys kept) and others. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mediaTypeIn, sameMediaType } from '../../src/card/media.js';

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

describe('mediaTypeIn', () => {
  it('is some(sameMediaType) over the list, frozen or not, asked again after the first time', () => {
    fc.assert(
      fc.property(fc.array(mediaType, { maxLength: 5 }), mediaType, (modes, type) => {
        const expected = modes.some((m) => sameMediaType(m, type));
        const frozen = Object.freeze([...modes]);
        expect(mediaTypeIn(modes, type)).toBe(expected);
        expect(mediaTypeIn(frozen, type)).toBe(expected);
        expect(mediaTypeIn(frozen, type)).toBe(expected);
      }),
    );
  });

  it('reads an unfrozen list afresh each time (a changed list is never answered from old keys)', () => {
    const modes = ['text/plain'];
    expect(mediaTypeIn(modes, 'application/json')).toBe(false);
    modes.push('application/json');
    expect(mediaTypeIn(modes, 'application/json')).toBe(true);
  });
});
