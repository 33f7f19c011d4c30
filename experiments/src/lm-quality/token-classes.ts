/**
 * Token roles inside a completion, for the entropy comparison: a *result* token is a digit the model
 * has to compute (the digits after the second `=` of a step line `b=7-2=5`, and the answer digits
 * after `</think>`); a *format* token is fixed by the trace format (`=`, the newline, `</think>`,
 * `<eos>`). Everything else (variable names, copied operands, operators, `wait`) is neither.
 * Segmentation relies on this contrast: high-entropy tokens mark where reasoning happens. The free-form
 * bed's prose has its own rule (proseTokenRoles).
 */
import { mean } from '@rred/core';

type TokenRole = 'result' | 'format' | 'other';

export function tokenRoles(tokenTexts: readonly string[], prose = false): TokenRole[] {
  if (prose) return proseTokenRoles(tokenTexts);
  const roles: TokenRole[] = [];
  let equalsInLine = 0;
  let afterThink = false;
  for (const text of tokenTexts) {
    if (text === '</think>' || text === '<eos>') {
      roles.push('format');
      if (text === '</think>') afterThink = true;
      continue;
    }
    if (text === '\n') {
      roles.push('format');
      equalsInLine = 0;
      continue;
    }
    if (text === '=') {
      roles.push('format');
      equalsInLine++;
      continue;
    }
    const digit = /^[0-9]$/.test(text);
    roles.push(digit && (afterThink || equalsInLine >= 2) ? 'result' : 'other');
  }
  return roles;
}

/**
 * The roles in a free-form (prose) completion, whose tokens are word pieces (` 7`, ` =`): a line's value is
 * its last digit (`Adding 3 to 4 gives a = 7.`, `The sum of 4 and 3 is 7, so a is 7.`), so that digit and the
 * answer digits after `</think>` are results; the newline, `=`, `</think>` and `<eos>` are format.
 */
function proseTokenRoles(tokenTexts: readonly string[]): TokenRole[] {
  const roles: TokenRole[] = tokenTexts.map((text) =>
    ['\n', '=', '</think>', '<eos>'].includes(text.trim() || text) ? 'format' : 'other',
  );
  let lastDigit = -1;
  let afterThink = false;
  tokenTexts.forEach((text, i) => {
    const digit = /^[0-9]$/.test(text.trim());
    if (text === '</think>') {
      if (lastDigit >= 0) roles[lastDigit] = 'result';
      lastDigit = -1;
      afterThink = true;
    } else if (digit && afterThink) roles[i] = 'result';
    else if (digit) lastDigit = i;
    else if (text.includes('\n')) {
      if (lastDigit >= 0) roles[lastDigit] = 'result';
      lastDigit = -1;
    }
  });
  if (lastDigit >= 0) roles[lastDigit] = 'result';
  return roles;
}

/** Mean entropy per role over many completions; NaN for a role that never occurs (reported, not hidden). */
export function meanEntropyByRole(
  completions: readonly { texts: readonly string[]; entropies: readonly number[] }[],
  prose = false,
): Record<TokenRole, { mean: number; count: number }> {
  const byRole: Record<TokenRole, number[]> = { result: [], format: [], other: [] };
  for (const c of completions) {
    if (c.texts.length !== c.entropies.length)
      throw new Error(`meanEntropyByRole: ${c.texts.length} tokens but ${c.entropies.length} entropies`);
    tokenRoles(c.texts, prose).forEach((role, i) => byRole[role].push(c.entropies[i]));
  }
  const out = {} as Record<TokenRole, { mean: number; count: number }>;
  for (const role of ['result', 'format', 'other'] as TokenRole[]) out[role] = { mean: mean(byRole[role]), count: byRole[role].length };
  return out;
}
