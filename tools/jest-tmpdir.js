/**
 * jest globalSetup and globalTeardown (jest.config.js): makes the run's private temporary directory
 * (RRED_TEST_TMPDIR, the TMPDIR of every test and child process) before the tests, and removes it with
 * everything the tests left in it after them (both calls run in jest's main process).
 */
const fs = require('fs');

module.exports = async () => {
  const dir = process.env.RRED_TEST_TMPDIR;
  if (!dir) return;
  if (process.env.RRED_TEST_TMPDIR_MADE !== dir) {
    fs.mkdirSync(dir, { recursive: true });
    process.env.RRED_TEST_TMPDIR_MADE = dir;
  } else fs.rmSync(dir, { recursive: true, force: true });
};
