import * as path from 'path';
import { runMain } from '@rred/core';
import { runFinetuneCommand } from './command';

runMain(async () => {
  const { runId, files } = await runFinetuneCommand(process.argv.slice(2));
  process.stderr.write(`finetune run ${runId} FINISHED; wrote ${files.map((f) => path.relative(process.cwd(), f)).join(', ')}\n`);
});
