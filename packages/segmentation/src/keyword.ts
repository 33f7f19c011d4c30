import type { Trace } from '@rred/lm';
import { capCuts, checkTrace, segmentsFromCuts } from './cuts';
import type { KeywordConfig } from './config';
import type { Segment } from './types';

/** How a token id reads as text: a function or a vocabulary array. */
export type TokenText = ((id: number) => string) | readonly string[];

function tokenTextFn(tokenText: TokenText): (id: number) => string {
  if (typeof tokenText === 'function') return tokenText;
  return (id) => {
    const text = tokenText[id];
    if (text === undefined) throw new Error(`token id ${id} is outside the vocabulary of ${tokenText.length} entries`);
    return text;
  };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Keyword cut points over the thinking span [0, thinkEnd), sorted and unique: after every token whose
 * text contains a newline, and before the token in which a marker word begins. A marker counts as a
 * whole word: not preceded or followed by a letter or digit.
 */
export function keywordCuts(
  trace: Trace,
  config: Pick<KeywordConfig, 'newline' | 'markers' | 'caseSensitive'>,
  tokenText: TokenText,
): number[] {
  checkTrace(trace);
  const text = tokenTextFn(tokenText);
  const n = trace.thinkEnd;
  const cuts = new Set<number>();
  const starts: number[] = []; // char offset where each token's text starts
  let joined = '';
  for (let t = 0; t < n; t++) {
    const piece = text(trace.completion[t]);
    starts.push(joined.length);
    joined += piece;
    if (config.newline && piece.includes('\n')) cuts.add(t + 1);
  }
  if (config.markers.length > 0 && n > 0) {
    const alternatives = config.markers.map(escapeRegExp).join('|');
    const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives})(?![\\p{L}\\p{N}])`, config.caseSensitive ? 'gu' : 'giu');
    for (const m of joined.matchAll(re)) {
      const at = m.index as number;
      // the token containing char `at`: last token starting at or before it
      let lo = 0;
      let hi = n - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid] <= at) lo = mid;
        else hi = mid - 1;
      }
      cuts.add(lo);
    }
  }
  return [...cuts].filter((c) => c > 0 && c < n).sort((a, b) => a - b);
}

/** Keyword segmentation; more than K-1 cuts are thinned evenly (`capCuts`). */
export function keywordSegments(trace: Trace, config: KeywordConfig, tokenText: TokenText): Segment[] {
  return segmentsFromCuts(capCuts(keywordCuts(trace, config, tokenText), config.maxSegments), trace.thinkEnd);
}
