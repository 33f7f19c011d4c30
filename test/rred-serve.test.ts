/**
 * `rred serve` as a real process on the embedded checkpoint: it prints its URL, the remote model reads
 * the embedded model's prompt log-probs (1e-4) and seeded samples from it as in-process, and SIGTERM stops it (exit 0).
 */
import { spawn, type ChildProcess } from 'child_process';
import * as path from 'path';
import { Rng } from '@rred/core';
import { initEngine } from '@rred/engine';
import { EMBEDDED_CHECKPOINT, TransformerLM } from '@rred/lm';
import { RemoteLM } from '@rred/remote';
import { promptTokens } from '@rred/tasks';
import { ROOT } from './fixtures/run-script';

describe('rred serve (a real process, the embedded checkpoint)', () => {
  let child: ChildProcess;
  let url = '';
  let lm: TransformerLM;
  beforeAll(async () => {
    await initEngine({ quiet: true });
    lm = TransformerLM.fromCheckpoint(path.join(ROOT, EMBEDDED_CHECKPOINT));
    child = spawn(process.execPath, [path.join(ROOT, 'packages/cli/bin/rred.js'), 'serve', '--port', '0', '--quiet'], { cwd: ROOT });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`rred serve exited with ${code} before listening`)));
    });
  });
  afterAll(() => {
    lm.dispose();
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('serves the embedded model: prompt log-probs to 1e-4 and seeded samples as in-process, on both adapters', async () => {
    const tok = lm.tokenizer;
    const prompt = promptTokens(tok, 'a=4+3;b=a+8;?b');
    const sequence = [...prompt, ...tok.encode('a=4+3=7\nb=7+8=5\n')];
    const requests = [prompt.length, prompt.length + 8, sequence.length].map((exitAt) => ({
      exitAt,
      suffix: tok.encode('</think>5<eos>'),
    }));
    const local = await lm.scoreAfterPrefixes(sequence, requests);
    const options = { temperature: 1, topP: 1, maxNewTokens: 60, stopToken: tok.eos };
    const sampled = await lm.sample([prompt, prompt], options, new Rng(5));
    for (const api of ['sglang', 'openai'] as const) {
      const remote = await RemoteLM.connect({ url, api });
      expect(remote.info.modelName).toBe('embedded');
      const served = await remote.scoreAfterPrefixes(sequence, requests);
      served.logprobs.forEach((row, i) => row.forEach((lp, t) => expect(Math.abs(lp - local.logprobs[i][t])).toBeLessThan(1e-4)));
      expect((await remote.sample([prompt, prompt], options, new Rng(5))).results).toEqual(sampled.results);
    }
  });

  it('stops on SIGTERM with exit code 0', async () => {
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
  });
});
