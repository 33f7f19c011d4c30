/**
 * `--help` prints each config option's default once, from the schema (or the command's defaults file), as
 * `[default: X]`. A description that also states a default in prose says it twice, and the two drift apart
 * (a description said "Default 'remaining'" beside `[default: "full"]`). So no config description mentions a
 * default: checked on every experiment command's schema as `--help` walks it, and on every `.describe()` text
 * in the sources of packages/ and experiments/ (pretrain, evaluate, the dataset builder and every nested schema).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as ts from 'typescript';
import { z } from 'zod';
import { configKeyDocs } from '@rred/core';
import { EXPERIMENTS } from '../experiments/src/registry';

const STATES_DEFAULT = /\bdefaults?\b/i;
const ROOT = path.resolve(__dirname, '..');

/** `path: description` of every config path of `schema` whose description mentions a default. */
function describedDefaults(schema: z.ZodTypeAny): string[] {
  return configKeyDocs(schema)
    .filter((k) => k.description !== undefined && STATES_DEFAULT.test(k.description))
    .map((k) => `${k.path}: ${k.description}`);
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The literal text of a describe() argument: its string literals and template pieces, concatenated. */
function literalText(node: ts.Node): string {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => `\${…}${s.literal.text}`)].join('');
  let out = '';
  ts.forEachChild(node, (c) => {
    out += literalText(c);
  });
  return out;
}

/** `file:line: text` of every `.describe(text)` call in `files` whose text mentions a default. */
function describeCallsStatingDefaults(files: readonly string[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    if (!text.includes('.describe(')) continue;
    const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'describe' &&
        node.arguments.length === 1
      ) {
        const said = literalText(node.arguments[0]);
        if (STATES_DEFAULT.test(said)) {
          const line = src.getLineAndCharacterOfPosition(node.getStart()).line + 1;
          out.push(`${path.relative(ROOT, file)}:${line}: ${said}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(src);
  }
  return out;
}

describe('config descriptions leave the default to the schema', () => {
  it.each(EXPERIMENTS.map((e) => [e.name, e.schema] as const))('%s: no description states a default', (_name, schema) => {
    expect(describedDefaults(schema as z.ZodTypeAny)).toEqual([]);
  });

  it('no .describe() text in packages/ or experiments/ states a default', () => {
    const packages = fs
      .readdirSync(path.join(ROOT, 'packages'))
      .map((p) => path.join(ROOT, 'packages', p, 'src'))
      .filter((d) => fs.existsSync(d));
    const files = [...packages, path.join(ROOT, 'experiments', 'src')].flatMap(sources);
    expect(files.length).toBeGreaterThan(100);
    expect(describeCallsStatingDefaults(files)).toEqual([]);
  });

  it('finds a default stated in a schema, nested or not, and in a describe() call of a source file', () => {
    const schema = z.object({
      a: z.number().default(1).describe('A count. Default 1.'),
      b: z.object({ c: z.string().default('x').describe('A name (default x).') }).default({}),
      d: z.number().default(2).describe('A count.'),
    });
    expect(describedDefaults(schema)).toEqual(['a: A count. Default 1.', 'b.c: A name (default x).']);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-describe-'));
    try {
      const file = path.join(dir, 'a.ts');
      fs.writeFileSync(file, "const k = 3;\nz.number().describe(`K segments. ` + `Defaults to ${k}.`);\nz.number().describe('n.');\n");
      expect(describeCallsStatingDefaults([file])).toEqual([expect.stringMatching(/a\.ts:2: K segments\. Defaults to \$\{…\}\.$/)]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
