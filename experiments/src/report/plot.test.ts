import { stableIds } from './plot';

describe('stableIds', () => {
  it('renumbers vega gradient and clip ids per file in order of appearance', () => {
    const a =
      '<linearGradient id="gradient_7"/><path fill="url(#gradient_7)"/><clipPath id="clip12"/><g clip-path="url(#clip12)"/><clipPath id="clip13"/>';
    expect(stableIds(a)).toBe(
      '<linearGradient id="gradient_0"/><path fill="url(#gradient_0)"/><clipPath id="clip1"/><g clip-path="url(#clip1)"/><clipPath id="clip2"/>',
    );
    expect(stableIds(a.replace(/gradient_7/g, 'gradient_3'))).toBe(stableIds(a));
  });
});
