import { z } from 'zod';
import { canonicalJson, parseConfig, seedSchema } from './config';
import { UserError } from './errors';

const schema = z
  .object({
    k: z.number().int().min(1).describe('max segments'),
    strategy: z.enum(['keyword', 'hybrid']).default('hybrid'),
    nested: z.object({ tau: z.number().positive() }).strict().default({ tau: 1 }),
  })
  .strict();

describe('parseConfig', () => {
  it('applies defaults to a valid config', () => {
    expect(parseConfig(schema, { k: 3 }, 'test')).toEqual({ k: 3, strategy: 'hybrid', nested: { tau: 1 } });
  });

  it('names an unknown key', () => {
    expect(() => parseConfig(schema, { k: 3, kk: 1 }, 'cfg.json')).toThrow(/unknown key 'kk'.*/);
    expect(() => parseConfig(schema, { k: 3, nested: { tau: 1, x: 2 } }, 'cfg.json')).toThrow(/'nested\.x'/);
  });

  it('names the key, the value and the expectation for a bad value', () => {
    let err: unknown;
    try {
      parseConfig(schema, { k: -3 }, 'cfg.json');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/cfg\.json/);
    expect((err as Error).message).toBe('invalid config (cfg.json): k: got -3, expected a number >= 1');
    expect(() => parseConfig(schema, { k: 'x' }, 'c')).toThrow(/k: got "x", expected a number$/);
    expect(() => parseConfig(schema, { k: 1.5 }, 'c')).toThrow(/k: got 1.5, expected an integer$/);
    expect(() => parseConfig(schema, {}, 'c')).toThrow(/k: got nothing, expected a number \(this key is required\)$/);
    expect(() => parseConfig(schema, { k: 1, strategy: 'x' }, 'c')).toThrow(/strategy: got "x", expected one of "keyword", "hybrid"$/);
  });

  it('reports every issue on one line in its own words', () => {
    const message = (input: unknown, written?: Record<string, string>) => {
      try {
        parseConfig(schema, input, 'cfg.json', written);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    };
    const text = message({ k: 0, nested: { tau: -1 }, extra: 1 });
    expect(text).not.toMatch(/\n/);
    expect(text).toMatch(/k: got 0, expected a number >= 1; nested.tau: got -1, expected a number > 0; unknown key 'extra'/);
    expect(text).not.toMatch(/Number must be/);
  });

  it('shows a value as the user wrote it: overrides verbatim, non-finite numbers by name', () => {
    expect(() => parseConfig(schema, { k: Infinity }, 'c', { k: '1e999' })).toThrow(/k: got '1e999', /);
    expect(() => parseConfig(schema, { k: Infinity }, 'c')).toThrow(/k: got Infinity, /);
    expect(() => parseConfig(schema, { k: '' }, 'c', { k: '' })).toThrow(/k: got '', expected a number/);
    const list = z.object({ xs: z.preprocess((v) => (typeof v === 'string' ? v.split(',') : v), z.array(z.enum(['a', 'b']))) }).strict();
    expect(() => parseConfig(list, { xs: 'a,nope' }, 'c', { xs: 'a,nope' })).toThrow(/xs\.1: got 'a,nope', expected one of "a", "b"$/);
  });
});

describe('seedSchema', () => {
  it('accepts integers in [0, 2^32) and refuses the rest in one line', () => {
    const s = z.object({ seed: seedSchema }).strict();
    expect(parseConfig(s, { seed: 0 }, 'c')).toEqual({ seed: 0 });
    expect(parseConfig(s, { seed: 4294967295 }, 'c')).toEqual({ seed: 4294967295 });
    for (const bad of [4294967296, 4294967297, -1, -4294967295, 1.5]) {
      expect(() => parseConfig(s, { seed: bad }, 'c')).toThrow(
        new RegExp(`^invalid config \\(c\\): seed: got ${bad}, expected an integer seed in \\[0, 2\\^32\\)`),
      );
    }
  });
});

describe('parseConfig with cross-field checks', () => {
  const pair = z
    .object({ lo: z.number(), hi: z.number() })
    .strict()
    .superRefine((c, ctx) => {
      if (c.hi < c.lo) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `hi (${c.hi}) must be ≥ lo (${c.lo})` });
    });
  const outer = z.object({ range: pair }).strict();

  it('reports a cross-field message as written, at the object it checks', () => {
    expect(() => parseConfig(pair, { lo: 2, hi: 1 }, 'p.json')).toThrow(/^invalid config \(p\.json\): hi \(1\) must be ≥ lo \(2\)$/);
    expect(() => parseConfig(outer, { range: { lo: 2, hi: 1 } }, 'o.json')).toThrow(/\): range: hi \(1\) must be ≥ lo \(2\)$/);
  });

  it("keeps 'got <value>' for a refinement that says what it expected of one field", () => {
    const one = z.object({ n: z.number() }).superRefine((c, ctx) => {
      if (c.n % 2) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['n'], message: 'expected an even number' });
    });
    expect(() => parseConfig(one, { n: 3 }, 'c')).toThrow(/n: got 3, expected an even number/);
  });
});

describe('canonicalJson', () => {
  it('is independent of key order', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [1, { f: 1, e: 2 }] } })).toBe(canonicalJson({ a: { c: [1, { e: 2, f: 1 }], d: 2 }, b: 1 }));
  });
});
