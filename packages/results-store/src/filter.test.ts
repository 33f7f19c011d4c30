import { UserError } from '@rred/core';
import { evaluateFilter, parseFilter } from './filter';
import type { RunSummary } from './types';

function run(over: Partial<RunSummary>): RunSummary {
  return {
    id: 'aaaa',
    experiment: 'exp',
    name: 'r',
    status: 'FINISHED',
    startTime: 0,
    endTime: 1,
    heartbeatTime: 1,
    parentRunId: null,
    configHash: 'h',
    seed: 1,
    pid: 1,
    hostname: 'h',
    attempts: 1,
    failure: null,
    params: {},
    metrics: {},
    tags: {},
    ...over,
  };
}

describe('run filter', () => {
  const a = run({
    id: 'a',
    params: { lr: '0.001', 'seg.k': '8', method: 'rredcot' },
    metrics: { acc: 0.7, loss: NaN },
    tags: { stage: 'dev' },
  });
  const b = run({ id: 'b', status: 'FAILED', params: { lr: '1e-5', 'seg.k': '4', method: 'mc' }, metrics: { acc: 0.3 } });
  const match = (src: string) => [a, b].filter((r) => evaluateFilter(parseFilter(src), r)).map((r) => r.id);

  it('compares params numerically against number literals', () => {
    expect(match('params.lr > 1e-4')).toEqual(['a']);
    expect(match('params.lr <= 1e-4')).toEqual(['b']);
    expect(match('params.seg.k = 4')).toEqual(['b']);
  });

  it('combines with and/or, with and binding tighter, and parentheses', () => {
    expect(match('params.lr > 1e-4 and metrics.acc >= 0.5')).toEqual(['a']);
    expect(match("status = 'FAILED' or metrics.acc > 0.5 and tags.stage = 'dev'")).toEqual(['a', 'b']);
    expect(match("(status = 'FAILED' or metrics.acc > 0.5) and tags.stage = 'dev'")).toEqual(['a']);
    expect(match('params.method != "mc" AND id = "a"')).toEqual(['a']);
  });

  it('treats a missing field as not matching and handles NaN metrics', () => {
    expect(match("tags.stage != 'x'")).toEqual(['a']);
    expect(match('metrics.loss = NaN')).toEqual(['a']);
    expect(match('metrics.loss > 0')).toEqual([]);
  });

  it('reports malformed filters with the position and what was expected', () => {
    expect(() => parseFilter('params.lr >')).toThrow(/at the end: expected a number or a quoted text/);
    expect(() => parseFilter('params.lr 3')).toThrow(/position 11.*expected an operator/);
    expect(() => parseFilter('foo.bar = 1')).toThrow(/unknown field scope 'foo'/);
    expect(() => parseFilter('lr = 1')).toThrow(/unknown field 'lr'/);
    expect(() => parseFilter("name = 'x")).toThrow(/unterminated/);
    expect(() => parseFilter('status = 1 status = 2')).toThrow(/expected 'and', 'or'/);
    expect(() => parseFilter("name = 'x'; drop table runs")).toThrow(/unexpected character ';'/);
    expect(() => parseFilter('(name = "x"')).toThrow(/expected '\)'/);
  });

  // a filter nested 5000 deep would overflow the stack without the depth limit
  it('refuses parentheses nested deeper than 100 in one short line, and evaluates long chains without deep recursion', () => {
    const nested = (n: number) => `${'('.repeat(n)}id = 'a'${')'.repeat(n)}`;
    expect(match(nested(100))).toEqual(['a']);
    let message = '';
    try {
      parseFilter(nested(5000));
    } catch (err) {
      expect(err).toBeInstanceOf(UserError);
      message = (err as Error).message;
    }
    expect(message).toMatch(/position 101 \('\('\): parentheses nest more than 100 deep$/);
    expect(message.length).toBeLessThan(200);
    expect(message).not.toContain('\n');
    const chain = Array.from({ length: 100000 }, (_, i) => `id = 'r${i}'`).join(' or ');
    expect(match(`${chain} or id = 'b'`)).toEqual(['b']);
    expect(match(Array.from({ length: 100000 }, () => "status = 'FINISHED'").join(' and '))).toEqual(['a']);
  });
});
