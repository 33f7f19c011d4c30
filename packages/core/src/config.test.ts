import { z } from 'zod';
import { canonicalJson, parseConfig } from './config';
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
    expect((err as Error).message).toMatch(/k: got -3, .*greater than or equal to 1/);
    expect(() => parseConfig(schema, { k: 'x' }, 'c')).toThrow(/k: got "x", expected number/);
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
    expect(() => parseConfig(pair, { lo: 2, hi: 1 }, 'p.json')).toThrow(/^invalid config \(p\.json\):\n  hi \(1\) must be ≥ lo \(2\)$/);
    expect(() => parseConfig(outer, { range: { lo: 2, hi: 1 } }, 'o.json')).toThrow(/\n  range: hi \(1\) must be ≥ lo \(2\)$/);
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
