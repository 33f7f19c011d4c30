import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { repoRoot, UserError } from '@rred/core';
import { readJsonl } from '@rred/tasks';
import { checkRecordsFit } from './dataset-fit';

describe('checkRecordsFit', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-dataset-fit-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const messageOf = (fn: () => void): string => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(UserError);
      return (err as Error).message;
    }
    throw new Error('expected a UserError');
  };

  it('blames a problem too long for the context on its record (file, line, id), not on the token budget', () => {
    const shipped = fs.readFileSync(path.join(repoRoot(), 'packages', 'tasks', 'data', 'eval-medium.jsonl'), 'utf8').split('\n');
    const huge = { ...JSON.parse(shipped[1]), id: 'huge-1', problem: `a=${'1'.repeat(1_000_000)}+3;?a`, meta: {} };
    const file = path.join(dir, 'huge.jsonl');
    fs.writeFileSync(file, `${shipped[0]}\n\n${JSON.stringify(huge)}\n`);
    const message = messageOf(() =>
      checkRecordsFit(file, readJsonl(file), 'packages/lm/checkpoints/embedded.ckpt', [{ field: 'rollout.maxNewTokens', tokens: 120 }]),
    );
    expect(message).toMatch(/huge\.jsonl:3 \(record huge-1\): its prompt is 1000009 tokens, the whole context of .* is 160$/);
    expect(message).not.toMatch(/maxNewTokens/);
  });

  it('blames the budget when the prompt fits alone, and names a character outside the alphabet', () => {
    const file = path.join(dir, 'small.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ id: 'r', problem: 'a=1+1;?a', solution: '', answer: '2' })}\n`);
    expect(
      messageOf(() =>
        checkRecordsFit(file, readJsonl(file), 'packages/lm/checkpoints/embedded.ckpt', [{ field: 'maxNewTokens', tokens: 500 }]),
      ),
    ).toMatch(
      /^maxNewTokens 500: with the \d+-token prompt of .*small\.jsonl:1 \(record r\) it exceeds the context of 160; expected at most \d+$/,
    );
    fs.writeFileSync(file, `${JSON.stringify({ id: 'r', problem: 'a=1+1;?a§', solution: '', answer: '2' })}\n`);
    expect(messageOf(() => checkRecordsFit(file, readJsonl(file), 'packages/lm/checkpoints/embedded.ckpt', []))).toMatch(
      /small\.jsonl:1 \(record r\): tokenizer: character "§" .* is not in the alphabet of checkpoint packages\/lm\/checkpoints\/embedded\.ckpt$/,
    );
  });
});
