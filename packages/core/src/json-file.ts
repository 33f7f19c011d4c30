import * as fs from 'fs';
import { UserError } from './errors';

/**
 * Reads a JSON config (or grid) file for a command. Stricter than JSON.parse, and every failure is
 * one line naming the file:
 * - a UTF-8 byte-order mark at the start is dropped (editors add it; it is not content);
 * - a syntax error gives the line and column and the character found, escaped (a YAML file does not
 *   put its own text, newlines included, into the message);
 * - a key given twice in one object is refused, naming the key (JSON.parse would keep the last);
 * - a number that overflows to ±Infinity (1e999) is refused, naming its key.
 */
export function readJsonFile(file: string, what = 'config file'): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? (err as Error).message);
    throw new UserError(`${what} ${file}: cannot read (${why})`);
  }
  return parseJsonText(text.startsWith('\uFEFF') ? text.slice(1) : text, `${what} ${file}`);
}

/** Parses JSON text with the checks above; `source` starts every message. */
export function parseJsonText(text: string, source: string): unknown {
  new JsonChecker(text, source).check();
  return JSON.parse(text);
}

const MAX_DEPTH = 100;

/** A validating scan of the JSON grammar (RFC 8259) that keeps key paths for messages. */
class JsonChecker {
  private pos = 0;
  private depth = 0;
  constructor(
    private readonly text: string,
    private readonly source: string,
  ) {}

  check(): void {
    this.space();
    this.value('');
    this.space();
    if (this.pos < this.text.length) this.fail('expected the end of the file after the top-level value');
  }

  private value(path: string): void {
    const c = this.text[this.pos];
    if (c === '{' || c === '[') {
      if (++this.depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`);
      if (c === '{') this.object(path);
      else this.array(path);
      this.depth--;
    } else if (c === '"') this.string();
    else if (c === '-' || (c >= '0' && c <= '9')) this.number(path);
    else if (!['true', 'false', 'null'].some((w) => this.word(w)))
      this.fail('expected a value (object, array, string, number, true, false or null)');
  }

  private object(path: string): void {
    this.pos++;
    const keys = new Set<string>();
    this.space();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return;
    }
    for (;;) {
      this.space();
      if (this.text[this.pos] !== '"') this.fail('expected a key in double quotes');
      const start = this.pos;
      this.string();
      const key = JSON.parse(this.text.slice(start, this.pos)) as string;
      const keyPath = path ? `${path}.${key}` : key;
      if (keys.has(key)) throw new UserError(`${this.source}: key '${keyPath}' appears twice (${this.where(start)}); give each key once`);
      keys.add(key);
      this.space();
      if (this.text[this.pos] !== ':') this.fail(`expected ':' after the key '${keyPath}'`);
      this.pos++;
      this.space();
      this.value(keyPath);
      this.space();
      const c = this.text[this.pos++];
      if (c === '}') return;
      if (c !== ',') this.fail("expected ',' or '}' in an object", this.pos - 1);
    }
  }

  private array(path: string): void {
    this.pos++;
    this.space();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return;
    }
    for (let i = 0; ; i++) {
      this.space();
      this.value(`${path}[${i}]`);
      this.space();
      const c = this.text[this.pos++];
      if (c === ']') return;
      if (c !== ',') this.fail("expected ',' or ']' in an array", this.pos - 1);
    }
  }

  private string(): void {
    const start = this.pos++;
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined) this.fail('unterminated string', start);
      if (c === '"') break;
      if (c < ' ') this.fail('control character inside a string (write \\n, \\t, ...)');
      if (c === '\\') {
        const e = this.text[this.pos + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) this.fail('bad \\u escape');
          this.pos += 4;
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail('bad escape in a string');
        this.pos++;
      }
      this.pos++;
    }
    this.pos++;
  }

  private number(path: string): void {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.pos));
    if (!m) this.fail('bad number');
    const written = m[0];
    if (!Number.isFinite(Number(written))) {
      throw new UserError(`${this.source}: ${path || 'the value'}: got ${written}, expected a finite number (${this.where(this.pos)})`);
    }
    this.pos += written.length;
  }

  private word(w: string): boolean {
    if (!this.text.startsWith(w, this.pos)) return false;
    this.pos += w.length;
    return true;
  }

  private space(): void {
    while (/[ \t\n\r]/.test(this.text[this.pos] ?? '')) this.pos++;
  }

  private where(pos: number): string {
    const before = this.text.slice(0, pos);
    const line = before.split('\n').length;
    return `line ${line}, column ${pos - before.lastIndexOf('\n')}`;
  }

  private fail(expected: string, at = this.pos): never {
    const c = this.text[at];
    // printable ASCII as itself, anything else (newline, BOM, ...) as an escape, so the line stays one line
    const found =
      c === undefined
        ? 'the end of the file'
        : /^[\x20-\x7e]$/.test(c)
          ? JSON.stringify(c)
          : `"\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}"`;
    throw new UserError(`${this.source}: not valid JSON at ${this.where(at)}: found ${found}, ${expected}`);
  }
}
