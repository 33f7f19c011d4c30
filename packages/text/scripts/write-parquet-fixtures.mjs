// Writes fixtures/{gsm8k,math}.parquet from the JSONL fixtures beside them (same records, string columns),
// the layout the published GSM8K and MATH Parquet files have. Run: node packages/text/scripts/write-parquet-fixtures.mjs
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parquetWriteFile } from 'hyparquet-writer';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
for (const name of ['gsm8k', 'math']) {
  const rows = fs
    .readFileSync(path.join(dir, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
  const columns = Object.keys(rows[0]);
  parquetWriteFile({
    filename: path.join(dir, `${name}.parquet`),
    columnData: columns.map((c) => ({ name: c, data: rows.map((r) => r[c]), type: 'STRING' })),
  });
  process.stdout.write(`wrote fixtures/${name}.parquet (${rows.length} rows, columns ${columns.join(', ')})\n`);
}
