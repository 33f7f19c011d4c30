import { UserError } from '@rred/core';
import { Tokenizer } from './tokenizer';

const ALPHABET = '0123456789+-*=()<> \nabcxyz';

describe('Tokenizer', () => {
  const tok = Tokenizer.fromAlphabet(ALPHABET);

  it('round-trips text with special tokens', () => {
    const text = '<bos>12+3*(4-5)<think>a<b x>y\n</think>=7<eos>';
    const ids = tok.encode(text);
    expect(tok.decode(ids)).toBe(text);
    expect(ids[0]).toBe(tok.bos);
    expect(ids.filter((id) => id === tok.think)).toHaveLength(1);
    expect(ids.filter((id) => id === tok.endThink)).toHaveLength(1);
    expect(ids[ids.length - 1]).toBe(tok.eos);
  });

  it('gives each character one id and specials their fixed ids', () => {
    expect(tok.vocabSize).toBe(5 + ALPHABET.length);
    expect(new Set([tok.pad, tok.bos, tok.eos, tok.think, tok.endThink]).size).toBe(5);
    expect(tok.encode('<')).toHaveLength(1);
    expect(tok.encode('<bxa')).toHaveLength(4); // not a complete special literal
    expect(tok.tokenText(tok.endThink)).toBe('</think>');
    expect(tok.encode('<pad>')).toEqual([tok.pad]);
  });

  it('rejects characters outside the alphabet, duplicates and bad ids', () => {
    expect(() => tok.encode('12Q')).toThrow(UserError);
    expect(() => tok.encode('12Q')).toThrow(/"Q" at index 2/);
    expect(() => Tokenizer.fromAlphabet('abca')).toThrow(/"a" appears twice/);
    expect(() => tok.decode([tok.vocabSize])).toThrow(/outside/);
  });

  it('serialises to JSON and back', () => {
    const back = Tokenizer.fromJSON(JSON.parse(JSON.stringify(tok.toJSON())));
    expect(back.vocabSize).toBe(tok.vocabSize);
    expect(back.encode('a+b<eos>')).toEqual(tok.encode('a+b<eos>'));
    expect(() => Tokenizer.fromJSON({ kind: 'bpe' }, 'ckpt.bin')).toThrow(/ckpt\.bin/);
  });

  describe('pieces', () => {
    const pieces = Tokenizer.fromPieces([' ', '.', '\n', 'a', 'p', 'l', 's', 'u', ' a', ' plus', ' p', '4', ' 4']);

    it('encodes longest piece first and decodes back', () => {
      const text = 'a plus 4.\n a p<eos>';
      const ids = pieces.encode(text);
      expect(pieces.decode(ids)).toBe(text);
      expect(ids.map((id) => pieces.tokenText(id))).toEqual(['a', ' plus', ' 4', '.', '\n', ' a', ' p', '<eos>']);
      expect(pieces.encode(' plu').map((id) => pieces.tokenText(id))).toEqual([' p', 'l', 'u']);
      expect(pieces.alphabet).toBe(' .\naplsu4');
    });

    it('rejects text no piece matches, duplicate and empty pieces', () => {
      expect(() => pieces.encode('a plus 5')).toThrow(/"5" at index 7 .* not in the pieces/);
      expect(() => Tokenizer.fromPieces(['ab', 'c', 'ab'])).toThrow(/"ab" appears twice/);
      expect(() => Tokenizer.fromPieces(['ab', ''])).toThrow(/piece 1 is empty/);
    });

    it('serialises to JSON and back, and a char tokenizer with the same characters differs', () => {
      const json = JSON.parse(JSON.stringify(pieces.toJSON()));
      expect(json.kind).toBe('pieces');
      const back = Tokenizer.fromJSON(json);
      expect(back.encode('a plus 4.')).toEqual(pieces.encode('a plus 4.'));
      expect(back.vocabSize).toBe(pieces.vocabSize);
      expect(() => Tokenizer.fromJSON({ ...json, pieces: [1] }, 'x.ckpt')).toThrow(/x\.ckpt/);
      expect(Tokenizer.fromAlphabet(' .\naplsu4').toJSON().kind).toBe('char');
    });
  });
});
