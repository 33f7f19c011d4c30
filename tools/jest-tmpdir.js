/**
 * jest globalSetup and globalTeardown (jest.config.js): makes the run's private temporary directory
 * (RRED_TEST_TMPDIR, the TMPDIR of every test and child process) before the tests, and removes it with
 * everything the tests left in it after them (both calls run in jest's main process).
 * tsx keeps its compile cache in $TMPDIR/tsx-<euid>: that one entry links to the system temporary
 * directory's, so the commands the tests start compile from a warm cache, as jest's own transforms do
 * (removing the private directory removes the link, not the cache).
 */
const fs = require('fs');
const os = require('os');
const path = require('path');

function linkTsxCache(dir) {
  const name = `tsx-${process.geteuid ? process.geteuid() : os.userInfo().username}`;
  const shared = path.join(path.dirname(dir), name);
  try {
    fs.mkdirSync(shared, { recursive: true });
    fs.symlinkSync(shared, path.join(dir, name), 'dir');
  } catch {
    // no shared cache: tsx makes its own inside the private directory
  }
}

module.exports = async () => {
  const dir = process.env.RRED_TEST_TMPDIR;
  if (!dir) return;
  if (process.env.RRED_TEST_TMPDIR_MADE !== dir) {
    fs.mkdirSync(dir, { recursive: true });
    linkTsxCache(dir);
    process.env.RRED_TEST_TMPDIR_MADE = dir;
  } else fs.rmSync(dir, { recursive: true, force: true });
};
