import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { finetuneCodeHash } from './code-identity';
import { finetuneConfigSchema } from './config';
import { planChildren } from './plan';

describe('finetune code identity', () => {
  it('changes with a library source file, not with its tests or READMEs', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-code-'));
    try {
      fs.mkdirSync(path.join(root, 'packages/training/src/configs'), { recursive: true });
      const write = (f: string, text: string) => fs.writeFileSync(path.join(root, f), text);
      write('packages/training/src/grpo.ts', 'a');
      write('packages/training/src/configs/grpo.ts', 'b');
      const h0 = finetuneCodeHash(root);
      write('packages/training/src/grpo.test.ts', 'test');
      write('packages/training/README.md', 'docs');
      expect(finetuneCodeHash(root)).toBe(h0);
      write('packages/training/src/configs/grpo.ts', 'c');
      expect(finetuneCodeHash(root)).not.toBe(h0);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
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
