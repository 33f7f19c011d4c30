import * as vega from 'vega';
import * as vl from 'vega-lite';
import { curveSpec, methodGroup } from './curve-spec';
import type { FinetuneSummary, MethodCurve } from './summary';

/** A method's curve on a bed: two seeds, steps 0, 10, 20 (values only need to differ). */
function curve(method: string, offset: number): MethodCurve {
  const pts = (seed: number) =>
    [0, 10, 20].map((step) => ({ step, avg: 0.1 + offset / 100 + seed / 1000 + step / 100, trainSeconds: step * 2 }));
  return { method, mean: pts(0), seeds: [1, 2].map((seed) => ({ seed, runId: `r${offset}${seed}`, curve: pts(seed) })) };
}

function bed(testBed: string, methods: string[]): FinetuneSummary {
  return {
    testBed,
    primary: testBed === 'embedded',
    splits: ['eval-medium'],
    evalRows: [],
    curves: methods.map((m, i) => curve(m, i)),
    efficiency: [],
    efficiencyCi: {},
    efficiencyAtMax: [],
    perSeed: [],
    cost: [],
    paired: [],
  };
}

type Row = {
  data: { values: { method: string; bed: string; kind: string }[] };
  spec: { layer: { encoding: { color: { title: string; scale: { domain: string[] } } } }[] };
};

const ALL = [
  'grpo',
  'rredcot',
  'rredcot-l1',
  'rredcot-own',
  'sigma-shuffle',
  'grpo-ref-sft',
  'verigate',
  'oracle',
  'grail',
  'mc',
  'a-new-arm',
];

describe('finetune curve figures: one row per method group', () => {
  it('puts each method in one group, a method no group names under other credit', () => {
    expect(ALL.map(methodGroup)).toEqual([
      'baseline',
      'RREDCoT arms',
      'RREDCoT arms',
      'RREDCoT arms',
      'controls',
      'controls',
      'step scores (VeriGate, oracle)',
      'step scores (VeriGate, oracle)',
      'other credit',
      'other credit',
      'other credit',
    ]);
  });

  it('draws every method in exactly one row, GRPO in every row, and only the beds that run a row’s methods', () => {
    const spec = curveSpec([bed('embedded', ALL), bed('assumptionsMet', ['grpo', 'rredcot', 'mc'])], 'step', 't', 'step', 4, 'run x');
    const rows = spec.vconcat as unknown as Row[];
    expect(rows.map((r) => r.spec.layer[0].encoding.color.title)).toEqual([
      'RREDCoT arms',
      'controls',
      'step scores (VeriGate, oracle)',
      'other credit',
    ]);
    const methodsOf = (r: Row, b: string) => [...new Set(r.data.values.filter((v) => v.bed === b).map((v) => v.method))];
    expect(rows.map((r) => methodsOf(r, 'embedded'))).toEqual([
      ['grpo', 'rredcot', 'rredcot-l1', 'rredcot-own'],
      ['grpo', 'sigma-shuffle', 'grpo-ref-sft'],
      ['grpo', 'verigate', 'oracle'],
      ['grpo', 'grail', 'mc', 'a-new-arm'],
    ]);
    // assumptionsMet runs no control and no step-score arm: those rows have no panel for it
    expect(rows.map((r) => methodsOf(r, 'assumptionsMet'))).toEqual([['grpo', 'rredcot'], [], [], ['grpo', 'mc']]);
    // the colour domain of a row is what the row draws, GRPO first
    for (const r of rows) expect(r.spec.layer[0].encoding.color.scale.domain).toEqual(methodsOf(r, 'embedded'));
    // seeds and means of every method are drawn
    for (const r of rows) expect(new Set(r.data.values.map((v) => v.kind))).toEqual(new Set(['seed', 'mean']));
  });

  it('without GRPO no row draws it; GRPO alone is one baseline row', () => {
    const noBase = curveSpec([bed('embedded', ['rredcot', 'mc'])], 'step', 't', 'step', 4, 's').vconcat as unknown as Row[];
    expect(noBase.map((r) => r.spec.layer[0].encoding.color.scale.domain)).toEqual([['rredcot'], ['mc']]);
    const alone = curveSpec([bed('embedded', ['grpo'])], 'trainSeconds', 't', 's', 4, 's').vconcat as unknown as Row[];
    expect(alone.map((r) => r.spec.layer[0].encoding.color.title)).toEqual(['baseline']);
  });

  it('compiles and renders, no wider than 1,400 px with two test beds', async () => {
    const spec = curveSpec(
      [bed('embedded', ALL), bed('assumptionsMet', ALL)],
      'step',
      'Validation accuracy vs GRPO step',
      'optimizer step',
      4,
      's',
    );
    const compiled = vl.compile(spec as unknown as vl.TopLevelSpec).spec;
    const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
    const svg = await view.toSVG();
    view.finalize();
    const width = Number(/<svg[^>]* width="([\d.]+)"/.exec(svg)![1]);
    expect(width).toBeGreaterThan(600);
    expect(width).toBeLessThanOrEqual(1400);
    for (const m of ALL) expect(svg).toContain(`>${m}<`);
  });
});
