import { UserError } from '@rred/core';

/** Special tokens, in id order. Their literal strings are what `encode` recognises and `decode` writes. */
const SPECIAL_TOKENS = ['<pad>', '<bos>', '<eos>', '<think>', '</think>'] as const;

/** Serialised form stored in checkpoints. */
interface TokenizerJson {
  kind: 'char';
  version: 1;
  /** The alphabet, one code point per token, in id order after the special tokens. */
  alphabet: string;
  specials: string[];
}

/**
 * Character-level tokenizer: ids 0..4 are the special tokens, then one id per code point of the
 * alphabet. Text outside the alphabet is an error rather than an `<unk>` token: the task alphabet is
 * closed, so an unknown character means the alphabet and the task generator disagree, and mapping it
 * silently would hide that.
 */
export class Tokenizer {
  readonly pad = 0;
  readonly bos = 1;
  readonly eos = 2;
  readonly think = 3;
  readonly endThink = 4;
  readonly vocabSize: number;
  private readonly chars: string[];
  private readonly charToId = new Map<string, number>();
  /** Special literals sorted longest first so `</think>` is matched before any shorter prefix. */
  private readonly specialsLongestFirst: { text: string; id: number }[];

  private constructor(readonly alphabet: string) {
    this.chars = Array.from(alphabet);
    if (this.chars.length === 0) throw new UserError('tokenizer alphabet: expected at least one character, got an empty string');
    this.chars.forEach((ch, i) => {
      if (this.charToId.has(ch))
        throw new UserError(
          `tokenizer alphabet: character ${JSON.stringify(ch)} appears twice (positions ${this.charToId.get(ch)! - SPECIAL_TOKENS.length} and ${i})`,
        );
      this.charToId.set(ch, SPECIAL_TOKENS.length + i);
    });
    this.vocabSize = SPECIAL_TOKENS.length + this.chars.length;
    this.specialsLongestFirst = SPECIAL_TOKENS.map((text, id) => ({ text: text as string, id })).sort(
      (a, b) => b.text.length - a.text.length,
    );
  }

  static fromAlphabet(alphabet: string): Tokenizer {
    return new Tokenizer(alphabet);
  }

  /** Text → ids. Literal special-token strings (e.g. `<think>`) become their single id. */
  encode(text: string): number[] {
    const ids: number[] = [];
    let i = 0;
    outer: while (i < text.length) {
      if (text[i] === '<') {
        for (const s of this.specialsLongestFirst) {
          if (text.startsWith(s.text, i)) {
            ids.push(s.id);
            i += s.text.length;
            continue outer;
          }
        }
      }
      const cp = text.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      const id = this.charToId.get(ch);
      if (id === undefined) {
        throw new UserError(
          `tokenizer: character ${JSON.stringify(ch)} at index ${i} of ${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)} is not in the alphabet`,
        );
      }
      ids.push(id);
      i += ch.length;
    }
    return ids;
  }

  /** Ids → text; special tokens are written as their literal strings. */
  decode(ids: readonly number[]): string {
    let out = '';
    for (const id of ids) out += this.tokenText(id);
    return out;
  }

  /** The text of one token id. */
  tokenText(id: number): string {
    if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize)
      throw new UserError(`tokenizer: token id ${id} is outside 0..${this.vocabSize - 1}`);
    return id < SPECIAL_TOKENS.length ? SPECIAL_TOKENS[id] : this.chars[id - SPECIAL_TOKENS.length];
  }

  toJSON(): TokenizerJson {
    return { kind: 'char', version: 1, alphabet: this.alphabet, specials: [...SPECIAL_TOKENS] };
  }

  static fromJSON(json: unknown, source = 'tokenizer JSON'): Tokenizer {
    const j = json as Partial<TokenizerJson> | null;
    if (!j || typeof j !== 'object' || j.kind !== 'char' || j.version !== 1 || typeof j.alphabet !== 'string') {
      throw new UserError(`${source}: expected {kind: "char", version: 1, alphabet: string}, got ${JSON.stringify(json)?.slice(0, 80)}`);
    }
    if (!Array.isArray(j.specials) || j.specials.join('\u0000') !== SPECIAL_TOKENS.join('\u0000')) {
      throw new UserError(
        `${source}: special tokens ${JSON.stringify(j.specials)} differ from this version's ${JSON.stringify(SPECIAL_TOKENS)}`,
      );
    }
    return new Tokenizer(j.alphabet);
  }
}
