import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { childCodeFiles, finetuneCodeHash, importsOf } from './code-identity';
import { finetuneConfigSchema } from './config';
import { planChildren } from './plan';

/** A miniature tree: an entry importing a package barrel and a relative file. */
function tree(): { root: string; write: (f: string, text: string) => void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-code-'));
  const write = (f: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), text);
  };
  write('packages/training/package.json', JSON.stringify({ name: '@rred/training', main: 'src/index.ts' }));
  write(
    'packages/training/src/index.ts',
    "export { GrpoTrainer } from './grpo';\nexport { SftTrainer } from './sft';\nexport type { Policy } from './policy';\n",
  );
  write('packages/training/src/grpo.ts', "import { clip } from './optimizer';\nexport class GrpoTrainer {}\n");
  write('packages/training/src/optimizer.ts', 'export const clip = 1;\n');
  write('packages/training/src/sft.ts', 'export class SftTrainer {}\n');
  write('packages/training/src/policy.ts', 'export interface Policy {}\n');
  write('packages/training/README.md', 'docs');
  write('README.md', '# repo');
  write(
    'experiments/src/finetune/child.ts',
    "import { GrpoTrainer, type Policy } from '@rred/training';\nimport type { X } from './render';\nimport { KEYS } from './keys';\n",
  );
  write('experiments/src/finetune/keys.ts', "import * as fs from 'fs';\nexport const KEYS = {};\n");
  write('experiments/src/finetune/render.ts', 'export type X = 1;\n');
  return { root, write };
}

describe('finetune code identity', () => {
  const entries = ['experiments/src/finetune/child.ts'];
  it('follows value imports: through a package index to the file that defines the name, not the whole package', () => {
    const { root } = tree();
    try {
      expect(childCodeFiles(root, entries)).toEqual([
        'experiments/src/finetune/child.ts',
        'experiments/src/finetune/keys.ts',
        'packages/training/src/grpo.ts',
        'packages/training/src/optimizer.ts',
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
  it('keeps its hash under a README edit, an edit to a file the child does not import, a test or a new index export; changes with an imported training file', () => {
    const { root, write } = tree();
    try {
      const h0 = finetuneCodeHash(root, entries);
      write('README.md', '# repo, edited');
      write('packages/training/README.md', 'docs, edited');
      write('packages/training/src/sft.ts', 'export class SftTrainer { x = 1 }\n'); // not imported by the child
      write('packages/training/src/multi-attempt/loop.ts', 'export const loop = 1;\n');
      write(
        'packages/training/src/index.ts',
        "export { GrpoTrainer } from './grpo';\nexport { SftTrainer } from './sft';\nexport type { Policy } from './policy';\nexport { loop } from './multi-attempt/loop';\n",
      );
      write('packages/training/src/grpo.test.ts', 'test');
      write('experiments/src/finetune/render.ts', 'export type X = 2;\n'); // a type-only import
      expect(finetuneCodeHash(root, entries)).toBe(h0);
      write('packages/training/src/optimizer.ts', 'export const clip = 2;\n'); // imported by grpo.ts
      const h1 = finetuneCodeHash(root, entries);
      expect(h1).not.toBe(h0);
      write('experiments/src/finetune/keys.ts', "import * as fs from 'fs';\nexport const KEYS = { a: 1 };\n");
      expect(finetuneCodeHash(root, entries)).not.toBe(h1);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
  it('reads value imports, re-exports and side-effect imports, and skips type-only ones and comments', () => {
    const refs = importsOf(
      [
        "import { a, type B, c as d } from './x';",
        "import type { T } from './types';",
        "import { type OnlyType } from './only-types';",
        "// import { gone } from './commented';",
        "export { e } from '@rred/core';",
        "import * as ns from './ns';",
        "import './side-effect';",
      ].join('\n'),
    );
    expect(refs).toEqual([
      { spec: './x', names: ['a', 'c'] },
      { spec: '@rred/core', names: ['e'] },
      { spec: './ns', names: '*' },
      { spec: './side-effect', names: '*' },
    ]);
  });
  it("covers the real child's code: the trainer, the estimators and the child itself, not the renderer or the multi-attempt trainer", () => {
    const files = childCodeFiles();
    for (const f of [
      'experiments/src/finetune/child.ts',
      'experiments/src/finetune/control-hooks.ts',
      'packages/training/src/grpo.ts',
      'packages/training/src/verigate.ts',
      'packages/estimators/src/sigma.ts',
    ])
      expect(files).toContain(f);
    for (const f of ['experiments/src/finetune/render.ts', 'experiments/src/finetune/summary.ts', 'experiments/src/finetune/compute.ts'])
      expect(files).not.toContain(f);
    expect(files.filter((f) => f.includes('/multi-attempt/') || f.endsWith('.test.ts') || f.endsWith('.md'))).toEqual([]);
  });
  it('is part of every child config: other code, other config hash (no reuse)', () => {
    const config = finetuneConfigSchema.parse({ methods: ['grpo'], seeds: [1] });
    const [a] = planChildren(config, 'ckpt', 'code-a');
    const [b] = planChildren(config, 'ckpt', 'code-b');
    expect(a.config.codeHash).toBe('code-a');
    expect(a.configHash).not.toBe(b.configHash);
    expect(planChildren(config, 'ckpt', 'code-a')[0].configHash).toBe(a.configHash);
    expect(planChildren(config, 'ckpt')[0].config.codeHash).toMatch(/^[0-9a-f]{64}$/);
  });
});
