import { UserError } from '@rred/core';

/** Special tokens, in id order. Their literal strings are what `encode` recognises and `decode` writes. */
const SPECIAL_TOKENS = ['<pad>', '<bos>', '<eos>', '<think>', '</think>'] as const;

/** Serialised form stored in checkpoints: a character alphabet, or a list of pieces (words, digits, characters). */
type TokenizerJson =
  | {
      kind: 'char';
      version: 1;
      /** The alphabet, one code point per token, in id order after the special tokens. */
      alphabet: string;
      specials: string[];
    }
  | {
      kind: 'pieces';
      version: 1;
      /** The pieces, one token each, in id order after the special tokens; matched longest first. */
      pieces: string[];
      specials: string[];
    };

/**
 * Tokenizer over a closed vocabulary: ids 0..4 are the special tokens, then one id per piece. A
 * character tokenizer (`fromAlphabet`) has one piece per code point of its alphabet; a piece tokenizer
 * (`fromPieces`) has words, digits and characters as pieces and encodes greedily, longest piece first
 * (so with the pieces ` plus` and ` p`, the text ` plus` is one token). Text no piece matches is an
 * error rather than an `<unk>` token: the task's texts are closed, so an unknown character means the
 * vocabulary and the task generator disagree, and mapping it silently would hide that.
 */
export class Tokenizer {
  readonly pad = 0;
  readonly bos = 1;
  readonly eos = 2;
  readonly think = 3;
  readonly endThink = 4;
  readonly vocabSize: number;
  /** The characters of a character tokenizer; for a piece tokenizer, its single-character pieces in id order. */
  readonly alphabet: string;
  private readonly pieces: string[];
  private readonly pieceToId = new Map<string, number>();
  /** Longest piece, in UTF-16 units: the longest substring `encode` looks up. */
  private readonly longest: number;
  /** Special literals sorted longest first so `</think>` is matched before any shorter prefix. */
  private readonly specialsLongestFirst: { text: string; id: number }[];

  private constructor(
    private readonly kind: 'char' | 'pieces',
    pieces: string[],
  ) {
    this.pieces = pieces;
    const what = kind === 'char' ? 'tokenizer alphabet' : 'tokenizer pieces';
    if (pieces.length === 0) throw new UserError(`${what}: expected at least one ${kind === 'char' ? 'character' : 'piece'}, got none`);
    pieces.forEach((piece, i) => {
      if (piece.length === 0) throw new UserError(`${what}: piece ${i} is empty`);
      if (this.pieceToId.has(piece))
        throw new UserError(
          `${what}: ${kind === 'char' ? 'character' : 'piece'} ${JSON.stringify(piece)} appears twice (positions ${this.pieceToId.get(piece)! - SPECIAL_TOKENS.length} and ${i})`,
        );
      this.pieceToId.set(piece, SPECIAL_TOKENS.length + i);
    });
    this.vocabSize = SPECIAL_TOKENS.length + pieces.length;
    this.longest = Math.max(...pieces.map((p) => p.length));
    this.alphabet = pieces.filter((p) => Array.from(p).length === 1).join('');
    this.specialsLongestFirst = SPECIAL_TOKENS.map((text, id) => ({ text: text as string, id })).sort(
      (a, b) => b.text.length - a.text.length,
    );
  }

  /** One token per code point of `alphabet`. */
  static fromAlphabet(alphabet: string): Tokenizer {
    return new Tokenizer('char', Array.from(alphabet));
  }

  /** One token per piece (words, digits, characters), matched longest first. */
  static fromPieces(pieces: readonly string[]): Tokenizer {
    return new Tokenizer('pieces', [...pieces]);
  }

  /** Text → ids. Literal special-token strings (e.g. `<think>`) become their single id; other text the longest piece that matches. */
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
      for (let len = Math.min(this.longest, text.length - i); len > 0; len--) {
        const id = this.pieceToId.get(text.slice(i, i + len));
        if (id !== undefined) {
          ids.push(id);
          i += len;
          continue outer;
        }
      }
      const ch = String.fromCodePoint(text.codePointAt(i)!);
      throw new UserError(
        `tokenizer: character ${JSON.stringify(ch)} at index ${i} of ${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)} is not in the ${this.kind === 'char' ? 'alphabet' : 'pieces'}`,
      );
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
    return id < SPECIAL_TOKENS.length ? SPECIAL_TOKENS[id] : this.pieces[id - SPECIAL_TOKENS.length];
  }

  toJSON(): TokenizerJson {
    return this.kind === 'char'
      ? { kind: 'char', version: 1, alphabet: this.pieces.join(''), specials: [...SPECIAL_TOKENS] }
      : { kind: 'pieces', version: 1, pieces: [...this.pieces], specials: [...SPECIAL_TOKENS] };
  }

  static fromJSON(json: unknown, source = 'tokenizer JSON'): Tokenizer {
    const j = json as Record<string, unknown> | null;
    const char = !!j && typeof j === 'object' && j.kind === 'char' && j.version === 1 && typeof j.alphabet === 'string';
    const pieces =
      !!j &&
      typeof j === 'object' &&
      j.kind === 'pieces' &&
      j.version === 1 &&
      Array.isArray(j.pieces) &&
      j.pieces.every((p) => typeof p === 'string');
    if (!char && !pieces) {
      throw new UserError(
        `${source}: expected {kind: "char", version: 1, alphabet: string} or {kind: "pieces", version: 1, pieces: string[]}, got ${JSON.stringify(json)?.slice(0, 80)}`,
      );
    }
    const specials = (j as Record<string, unknown>).specials;
    if (!Array.isArray(specials) || specials.join('\u0000') !== SPECIAL_TOKENS.join('\u0000')) {
      throw new UserError(
        `${source}: special tokens ${JSON.stringify(specials)} differ from this version's ${JSON.stringify(SPECIAL_TOKENS)}`,
      );
    }
    return char ? Tokenizer.fromAlphabet(j!.alphabet as string) : Tokenizer.fromPieces(j!.pieces as string[]);
  }
}
