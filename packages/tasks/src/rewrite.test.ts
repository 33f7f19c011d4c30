import { buildDatasets, problemFromRecord } from './build';
import type { TaskRecord } from './dataset';
import { countSolutionOrders } from './orders';
import { evaluate } from './problem';
import { rewriteReference, REFERENCE_REWRITES } from './rewrite';

const records = buildDatasets(5, { train: 0, validation: 0, 'eval-easy': 0, 'eval-medium': 40, 'eval-hard': 0 })['eval-medium'];
const LINE = /^([a-z])=(\d+)([+\-*])(\d+)=(\d+)$/;

/** Each line computes a step of the problem with its true operand values (in either order) and result; every step once; dependencies first. */
function checkSolution(record: TaskRecord, solution: string): void {
  const problem = problemFromRecord(record);
  const values = evaluate(problem);
  const seen = new Set<string>();
  for (const line of solution.split('\n')) {
    const m = LINE.exec(line);
    expect(m).not.toBeNull();
    const [, name, l, op, r, v] = m!;
    const step = problem.steps.find((s) => s.name === name)!;
    const operand = (o: (typeof step)['left']) => (o.kind === 'num' ? o.value : values.get(o.name)!);
    for (const o of [step.left, step.right]) if (o.kind === 'var') expect(seen.has(o.name)).toBe(true);
    expect(op).toBe(step.op);
    expect([Number(l), Number(r)].sort()).toEqual([operand(step.left), operand(step.right)].sort());
    expect(Number(v)).toBe(values.get(name));
    seen.add(name);
  }
  expect(seen.size).toBe(problem.steps.length);
}

describe('reference rewrites (stress arm)', () => {
  it('keep every rewrite a correct solution of the same problem', () => {
    for (const r of records) for (const w of REFERENCE_REWRITES) checkSolution(r, rewriteReference(r, w).solution);
  });

  it('reorder changes the text exactly when the problem has another valid order, keeping the set of lines', () => {
    for (const r of records) {
      const { solution, changed } = rewriteReference(r, 'reorder');
      expect(changed).toBe(countSolutionOrders(problemFromRecord(r)) > 1);
      expect(solution.split('\n').sort()).toEqual(r.solution.split('\n').sort());
    }
  });

  it('swap keeps the line order and swaps the operands of + and * lines only', () => {
    const r = { ...records[0], problem: 'a=4+3;b=a+8;c=9-7;d=c*b;?d', solution: 'a=4+3=7\nb=7+8=5\nc=9-7=2\nd=2*5=0', answer: '0' };
    expect(rewriteReference(r, 'swap')).toEqual({ solution: 'a=3+4=7\nb=8+7=5\nc=9-7=2\nd=5*2=0', changed: true });
    // the last valid order in lexicographic order computes c first
    expect(rewriteReference(r, 'reorder').solution).toBe('c=9-7=2\na=4+3=7\nb=7+8=5\nd=2*5=0');
    expect(rewriteReference(r, 'reorderSwap').solution).toBe('c=9-7=2\na=3+4=7\nb=8+7=5\nd=5*2=0');
  });

  it('most eval-medium references change under every rewrite', () => {
    for (const w of REFERENCE_REWRITES) {
      const changed = records.filter((r) => rewriteReference(r, w).changed).length;
      expect(changed).toBeGreaterThan(records.length / 2);
    }
  });
});
