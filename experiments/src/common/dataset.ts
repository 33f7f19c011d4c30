import * as crypto from 'crypto';
import * as fs from 'fs';
import { UserError } from '@rred/core';
import { readJsonl, verify, type TaskRecord } from '@rred/tasks';
import { loadDataset as loadFormatted, verifyMath, type DatasetFormat } from '@rred/text';

/**
 * A verifier: ζ of a completion (thinking `</think>` answer `<eos>`, decoded) against the record's
 * answer. The task's own `verify` (@rred/tasks) is the default; `--verifier MODULE` plugs in another,
 * e.g. a math answer checker for real problems.
 */
export type Verifier = (completionText: string, expectedAnswer: string, stopped: boolean) => { reward: number; answer: string | null };

/** `--dataset FILE [--format FORMAT] [--verifier MODULE]`: problems from a file instead of the config's split. */
export interface DatasetRef {
  /** Absolute path of the dataset file (JSONL, or Parquet for gsm8k / math). */
  file: string;
  /** Its records' format (@rred/text loadDataset): 'jsonl' (the lab's records), 'gsm8k' or 'math'. */
  format: DatasetFormat;
  /** Absolute path of the verifier module, or null for the task's verifier. */
  verifier: string | null;
}

interface LoadedDataset {
  records: TaskRecord[];
  verify: Verifier;
  /** Run tags: the file, its sha256 and the verifier. */
  tags: Record<string, string>;
}

/**
 * The first `count` records of the file (the loader every split goes through: one `{id, problem,
 * solution, answer}` record per line, duplicate ids refused) and the verifier. The module must export
 * `verify(completionText, expectedAnswer, stopped) → {reward, answer}`; a reward outside [0, 1] is an
 * error naming the module and the record.
 */
export async function loadDataset(ref: DatasetRef, count: number): Promise<LoadedDataset> {
  const all = ref.format === 'jsonl' && !ref.file.endsWith('.parquet') ? readJsonl(ref.file) : await loadFormatted(ref.file, ref.format);
  if (all.length < count) throw new UserError(`--dataset ${ref.file}: ${all.length} records, ${count} were asked for (--problems)`);
  let check: Verifier = ref.format === 'jsonl' ? verify : mathVerifier;
  if (ref.verifier) {
    let mod: { verify?: unknown };
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      mod = require(ref.verifier) as { verify?: unknown };
    } catch (err) {
      throw new UserError(`--verifier ${ref.verifier}: cannot load it (${(err as Error).message.split('\n')[0]})`);
    }
    if (typeof mod.verify !== 'function')
      throw new UserError(`--verifier ${ref.verifier}: expected it to export a function verify(completionText, answer, stopped)`);
    const userVerify = mod.verify as Verifier;
    const source = ref.verifier;
    check = (text, answer, stopped) => {
      const v = userVerify(text, answer, stopped);
      if (!v || typeof v.reward !== 'number' || !(v.reward >= 0 && v.reward <= 1)) {
        throw new UserError(
          `--verifier ${source}: verify() returned reward ${JSON.stringify(v?.reward)} for answer '${answer}', expected a number in [0, 1]`,
        );
      }
      return { reward: v.reward, answer: typeof v.answer === 'string' ? v.answer : null };
    };
  }
  const sha = fileSha256(ref.file);
  return {
    records: all.slice(0, count),
    verify: check,
    tags: {
      'dataset.file': ref.file,
      'dataset.sha256': sha,
      'dataset.format': ref.format,
      'dataset.verifier': ref.verifier ?? (ref.format === 'jsonl' ? 'task' : 'math'),
    },
  };
}

/**
 * The verifier of gsm8k / math datasets: the answer after `</think>` (to `<eos>`) by @rred/text's verifyMath
 * (boxed answers, fractions, units, thousands separators); a truncated completion or one without `</think>` scores 0.
 */
const mathVerifier: Verifier = (text, expected, stopped) => {
  const close = text.indexOf('</think>');
  if (!stopped || close < 0) return { reward: 0, answer: null };
  const v = verifyMath(text.slice(close + '</think>'.length).split('<eos>')[0], expected);
  return { reward: v.reward, answer: v.answer };
};

/** sha256 of a file's bytes (a missing file is a one-line error). */
export function fileSha256(file: string): string {
  try {
    return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch (err) {
    throw new UserError(`--dataset ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}
