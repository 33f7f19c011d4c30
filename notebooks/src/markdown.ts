/**
 * Renders the committed result tables (results/**\/*.md) to HTML. They use a small subset of
 * Markdown, and this renders exactly that subset: `#`..`######` headings, paragraphs, `- ` lists,
 * pipe tables (header row, `---` rule, body rows) and inline `code`. Everything else is text,
 * HTML-escaped. `run <12 hex>` mentions become links to the run's page.
 */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function inline(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part) =>
      part.startsWith('`') && part.endsWith('`') && part.length >= 2
        ? `<code>${escapeHtml(part.slice(1, -1))}</code>`
        : escapeHtml(part).replace(/\brun ([0-9a-f]{12})\b/g, 'run <a href="run.html?id=$1">$1</a>'),
    )
    .join('');
}

function cells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split('|').map((c) => c.trim());
}

const isRule = (row: string) => /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(row);

export function renderMarkdown(src: string): string {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = heading[1].length;
      out.push(`<h${level}>${inline(heading[2].trim())}</h${level}>`);
      i++;
      continue;
    }
    if (line.trimStart().startsWith('|') && i + 1 < lines.length && isRule(lines[i + 1])) {
      const header = cells(line);
      i += 2;
      const body: string[][] = [];
      while (i < lines.length && lines[i].trimStart().startsWith('|')) body.push(cells(lines[i++]));
      out.push(
        '<table class="md-table"><thead><tr>' +
          header.map((h) => `<th>${inline(h)}</th>`).join('') +
          '</tr></thead><tbody>' +
          body.map((r) => '<tr>' + header.map((_h, c) => `<td>${inline(r[c] ?? '')}</td>`).join('') + '</tr>').join('') +
          '</tbody></table>',
      );
      continue;
    }
    if (/^\s*- /.test(line)) {
      const items: string[] = [];
      while (i < lines.length && /^\s*- /.test(lines[i])) items.push(lines[i++].replace(/^\s*- /, ''));
      out.push('<ul>' + items.map((t) => `<li>${inline(t)}</li>`).join('') + '</ul>');
      continue;
    }
    const para: string[] = [];
    while (
      i < lines.length &&
      lines[i].trim() !== '' &&
      !/^#{1,6}\s/.test(lines[i]) &&
      !/^\s*- /.test(lines[i]) &&
      !lines[i].trimStart().startsWith('|')
    ) {
      para.push(lines[i++].trim());
    }
    if (para.length === 0) para.push(lines[i++].trim()); // a lone '|' line that is not a table
    out.push(`<p>${inline(para.join(' '))}</p>`);
  }
  return out.join('\n');
}
