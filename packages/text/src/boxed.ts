/** Each `\boxed{…}` / `\fbox{…}` of a text: where it starts, its contents [from, to), and its end (after `}`). */
function* boxes(text: string): Generator<{ start: number; from: number; to: number; end: number }> {
  const re = /\\(?:boxed|fbox)\s*\{/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let depth = 1;
    let i = m.index + m[0].length;
    const from = i;
    for (; i < text.length && depth > 0; i++) {
      if (text[i] === '\\')
        i++; // an escaped character (\{ \}) never opens or closes
      else if (text[i] === '{') depth++;
      else if (text[i] === '}') depth--;
    }
    if (depth === 0) yield { start: m.index, from, to: i - 1, end: i }; // an unclosed box is skipped
    re.lastIndex = i;
  }
}

/** The contents of every `\boxed{…}` (and `\fbox{…}`) in a text, in order, braces balanced (`\boxed{\frac{1}{2}}` → `\frac{1}{2}`). */
export function boxedContents(text: string): string[] {
  return [...boxes(text)].map((b) => text.slice(b.from, b.to));
}

/** The text with every `\boxed{X}` replaced by X (a reference solution read as plain thinking). */
export function unboxed(text: string): string {
  let out = '';
  let last = 0;
  for (const b of boxes(text)) {
    out += text.slice(last, b.start) + text.slice(b.from, b.to);
    last = b.end;
  }
  return out + text.slice(last);
}
