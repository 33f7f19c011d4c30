import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runCli } from '../cli';

async function cli(argv: string[]): Promise<string> {
  let out = '';
  await runCli(argv, { out: (t) => (out += t), env: {} });
  return out;
}

describe('rred export-gguf', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-export-gguf-'));
  const ckpt = path.resolve(__dirname, '..', '..', '..', 'lm', 'checkpoints', 'embedded.ckpt');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the GGUF and says what it wrote', async () => {
    const out = path.join(dir, 'embedded.gguf');
    expect(await cli(['export-gguf', '--checkpoint', ckpt, '--out', out])).toMatch(
      /^wrote .*embedded\.gguf: 52 tensors, \d+ bytes, checkpoint [0-9a-f]{12}\n$/,
    );
    expect(fs.readFileSync(out).subarray(0, 4).toString('latin1')).toBe('GGUF');
  });

  it('refuses bad flags with one-line errors, writing nothing', async () => {
    await expect(cli(['export-gguf', '--out', path.join(dir, 'a.gguf')])).rejects.toThrow('export-gguf: --checkpoint FILE is required');
    await expect(cli(['export-gguf', '--checkpoint', ckpt])).rejects.toThrow('export-gguf: --out FILE.gguf is required');
    await expect(cli(['export-gguf', '--checkpoint', ckpt, '--out', path.join(dir, 'a.bin')])).rejects.toThrow(
      /expected a file name ending in \.gguf/,
    );
    await expect(cli(['export-gguf', '--checkpoint', ckpt, '--out', path.join(dir, 'missing', 'a.gguf')])).rejects.toThrow(/--out/);
    await expect(cli(['export-gguf', '--checkpoint', path.join(dir, 'none.ckpt'), '--out', path.join(dir, 'b.gguf')])).rejects.toThrow(
      /file not found/,
    );
    expect(fs.readdirSync(dir).filter((f) => f !== 'embedded.gguf')).toEqual([]);
  });
});
