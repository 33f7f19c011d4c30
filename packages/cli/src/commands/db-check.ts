import { STORE_FLAG, textTable, UserError } from '@rred/core';
import { inspectStoreFile, resolveStorePath } from '@rred/results-store';
import { expectPositionals, type Command } from '../command';

export const dbCheck: Command = {
  name: 'db check',
  summary: 'integrity check, schema version and row counts of the store (read-only; works on damaged files)',
  flags: { store: STORE_FLAG },
  run: (args, ctx) => {
    expectPositionals(args, 'db check', 0, 0, 'none');
    const report = inspectStoreFile(resolveStorePath(args.flags.store as string | undefined, ctx.env));
    const ok = report.integrity.length === 1 && report.integrity[0] === 'ok';
    const problems = report.integrity.flatMap((l) => l.split('\n'));
    const version = report.schemaVersion ?? 'unreadable';
    const upgrade = report.schemaVersion !== null && report.schemaVersion < report.latestVersion ? ' — upgraded in place on next open' : '';
    ctx.out(
      `store      ${report.file}\n` +
        `schema     version ${version} (latest ${report.latestVersion})${report.schemaProblem ? '' : upgrade}\n` +
        (report.schemaProblem ? `           ${report.schemaProblem}\n` : '') +
        `integrity  ${problems.slice(0, 20).join('\n           ')}${problems.length > 20 ? `\n           ... ${problems.length - 20} more` : ''}\n` +
        (report.tableCounts
          ? `\n${textTable({ columns: ['table', 'rows'], rows: Object.entries(report.tableCounts) })}\n`
          : '\nrow counts unavailable (file too damaged)\n'),
    );
    if (!ok) throw new UserError(`db check: ${report.file} failed the integrity check`, 1);
    if (report.schemaProblem) throw new UserError(`db check: ${report.file} ${report.schemaProblem}`, 1);
    if (report.schemaVersion !== null && report.schemaVersion > report.latestVersion) {
      throw new UserError(
        `db check: ${report.file} has schema version ${report.schemaVersion}, newer than this code (${report.latestVersion})`,
        1,
      );
    }
  },
};
