import * as fs from 'fs';
import * as path from 'path';
import { repoRoot, UserError } from '@rred/core';
import { readCheckpointHeader, Tokenizer } from '@rred/lm';
import { promptTokens, type TaskRecord } from '@rred/tasks';

/** Where a budget of new tokens comes from, for messages: e.g. { field: 'rollout.maxNewTokens', tokens: 120 }. */
interface TokenBudget {
  field: string;
  tokens: number;
}

/**
 * The dataset precheck of every command that samples from a checkpoint (the experiments, `evaluate`),
 * run before any store or file is touched: each record's problem is written in the checkpoint's
 * alphabet, and its prompt fits the checkpoint's context together with the largest budget of new tokens.
 * (That a record's answer is the one its problem defines is checked when the file is read, by readJsonl.)
 * A record that fails is named by file, line and id; a prompt that alone fills the context is blamed on
 * the record, not on the budget. `checkpoint` is relative to the repository root or absolute.
 */
export function checkRecordsFit(file: string, records: readonly TaskRecord[], checkpoint: string, budgets: readonly TokenBudget[]): void {
  const header = readCheckpointHeader(path.resolve(repoRoot(), checkpoint));
  const tokenizer = Tokenizer.fromJSON(header.tokenizer, `checkpoint ${checkpoint}`);
  const context = header.config.contextLength;
  const lines = recordLines(file);
  const budget = budgets.reduce((a, b) => (b.tokens > a.tokens ? b : a), { field: '', tokens: 0 });
  records.forEach((r, i) => {
    const where = `${path.relative(repoRoot(), file)}:${lines[i]} (record ${r.id})`;
    let prompt: number[];
    try {
      prompt = promptTokens(tokenizer, r.problem);
    } catch (err) {
      throw new UserError(`${where}: ${(err as Error).message} of checkpoint ${checkpoint}`);
    }
    if (prompt.length >= context)
      throw new UserError(`${where}: its prompt is ${prompt.length} tokens, the whole context of ${checkpoint} is ${context}`);
    if (prompt.length + budget.tokens > context) {
      throw new UserError(
        `${budget.field} ${budget.tokens}: with the ${prompt.length}-token prompt of ${where} it exceeds the context of ${context}; expected at most ${context - prompt.length}`,
      );
    }
  });
}

/** 1-based line number of each record of a JSONL file (readJsonl skips blank lines the same way). */
function recordLines(file: string): number[] {
  const lines: number[] = [];
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() !== '') lines.push(i + 1);
    });
  return lines;
}
