/**
 * No function in experiments/, notebooks/ or packages/ runs over 80 lines unless its doc comment says why
 * (a line starting "Long because:"): long functions are split into named steps. Scans the TypeScript AST of
 * every non-test source file of experiments/src, notebooks/src and packages/<name>/src.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as ts from 'typescript';

const LIMIT = 80;
const ROOT = path.resolve(__dirname);
const NOTEBOOKS = path.resolve(__dirname, '..', '..', 'notebooks', 'src');
const PACKAGES = path.resolve(__dirname, '..', '..', 'packages');
/** Every packages/<name>/src. */
const packageSources = (): string[] =>
  fs
    .readdirSync(PACKAGES)
    .map((p) => path.join(PACKAGES, p, 'src'))
    .filter((dir) => fs.existsSync(dir))
    .flatMap(sources);

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** `file:line (n lines)` of every function over the limit without a stated reason. */
function longFunctions(files: readonly string[], limit = LIMIT): string[] {
  const out: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = src.getLineAndCharacterOfPosition(node.getStart()).line;
        const lines = src.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
        // the comment may sit on the function or on the statement that holds it (const f = () => …)
        const holder = ts.isVariableDeclaration(node.parent) ? node.parent.parent.parent : node;
        const comment =
          ts
            .getLeadingCommentRanges(text, holder.getFullStart())
            ?.map((r) => text.slice(r.pos, r.end))
            .join('\n') ?? '';
        if (lines > limit && !/Long because:/.test(comment)) out.push(`${path.relative(ROOT, file)}:${first + 1} (${lines} lines)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(src);
  }
  return out;
}

describe('function length', () => {
  it(`no function in experiments/, notebooks/ or packages/ is over ${LIMIT} lines without a reason`, () => {
    expect(longFunctions([...sources(ROOT), ...sources(NOTEBOOKS), ...packageSources()])).toEqual([]);
  });

  it('finds a long function, and accepts one whose comment gives the reason', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-fnlen-'));
    const body = Array.from({ length: 5 }, (_, i) => `  const x${i} = ${i};`).join('\n');
    fs.writeFileSync(
      path.join(dir, 'a.ts'),
      `export function f() {\n${body}\n}\n/** Long because: one table. */\nexport const g = () => {\n${body}\n};\n`,
    );
    try {
      expect(longFunctions([path.join(dir, 'a.ts')], 4)).toEqual([expect.stringMatching(/a\.ts:1 \(7 lines\)$/)]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
