import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UserError } from './errors';
import { parseJsonText, readJsonFile } from './json-file';

function messageOf(text: string): string {
  try {
    parseJsonText(text, 'config file c.json');
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
  throw new Error('expected a UserError');
}

describe('readJsonFile', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rred-json-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('parses what JSON.parse parses', () => {
    const text = '{"a": [1, -2.5e3, true, null, {"b": "x\\\\\\"y\\u00e9"}], "c": {}, "d": []}';
    expect(parseJsonText(text, 's')).toEqual(JSON.parse(text));
  });

  it('drops a UTF-8 byte-order mark', () => {
    const file = path.join(dir, 'bom.json');
    fs.writeFileSync(file, '\uFEFF{"seed": 3}');
    expect(readJsonFile(file)).toEqual({ seed: 3 });
  });

  it('refuses a key given twice, naming the key, its line and the file', () => {
    expect(messageOf('{\n  "mc": {"n": 1,\n "n": 2}\n}')).toBe(
      "config file c.json: key 'mc.n' appears twice (line 3, column 2); give each key once",
    );
    // the same key in different objects is fine
    expect(parseJsonText('[{"a": 1}, {"a": 2}]', 's')).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('gives one line without the file text for a YAML file', () => {
    const text = messageOf('seed: 3\nproblems: 4\n');
    expect(text).toBe(
      'config file c.json: not valid JSON at line 1, column 1: found "s", expected a value (object, array, string, number, true, false or null)',
    );
    expect(messageOf('{"a": 1,\n}')).toBe(
      'config file c.json: not valid JSON at line 2, column 1: found "}", expected a key in double quotes',
    );
    expect(messageOf('{"a": "x\ny"}')).toMatch(/^[^\n]*control character inside a string/);
    expect(messageOf('')).toMatch(/found the end of the file/);
    expect(messageOf('{"a": 1} x')).toMatch(/expected the end of the file/);
    expect(messageOf('\uFEFF{}')).toMatch(/found "\\ufeff"/);
  });

  it('refuses numbers that overflow to Infinity, naming the key', () => {
    expect(messageOf('{"mc": {"lr": 1e999}}')).toBe('config file c.json: mc.lr: got 1e999, expected a finite number (line 1, column 15)');
  });

  it('refuses nesting that would overflow the stack', () => {
    expect(messageOf('['.repeat(5000))).toMatch(/nesting deeper than 100 levels/);
  });

  it('names an unreadable file', () => {
    expect(() => readJsonFile(path.join(dir, 'missing.json'))).toThrow(/missing\.json: cannot read \(no such file\)/);
    expect(() => readJsonFile(dir, 'grid file')).toThrow(/^grid file .*: cannot read \(it is a directory\)$/);
  });
});
