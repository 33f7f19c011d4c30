/** One jest run covers every package; `npx jest packages/<name>` runs one of them. */
// The results store opens read-only stores through SQLite `file:` URIs (immutable=1), which must be
// enabled before better-sqlite3 loads; test files see a copy of process.env, so the workers get it here.
process.env.SQLITE_USE_URI = '1';
// Every temporary file of the run (the tests' mkdtemp directories, stores, what their child processes and
// browsers write) goes to one private directory under the system's, made by tools/jest-tmpdir.js before the
// workers start and removed after the run: a test run leaves nothing in /tmp. jest's transform cache stays
// where it was (kept between runs).
const os = require('os');
const path = require('path');
const systemTmp = os.tmpdir();
if (!process.env.RRED_TEST_TMPDIR) {
  process.env.RRED_TEST_TMPDIR = path.join(systemTmp, `rred-jest-${process.pid}`);
  process.env.TMPDIR = process.env.RRED_TEST_TMPDIR;
}
module.exports = {
  cacheDirectory: path.join(systemTmp, `jest_${process.getuid ? process.getuid().toString(36) : 'rs'}`),
  globalSetup: '<rootDir>/tools/jest-tmpdir.js',
  globalTeardown: '<rootDir>/tools/jest-tmpdir.js',
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/experiments', '<rootDir>/notebooks', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking happens in `npm run typecheck`; tests only transpile, which keeps them fast.
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }],
  },
  // Workspace packages resolve from source, as tsconfig.base.json's `paths` (also before npm links them).
  // arquero 7 ships its source as ES modules only, which jest's CommonJS runtime cannot load; its
  // self-contained UMD build (same version, same code, in the package's dist/) can.
  moduleNameMapper: {
    '^@rred/(.*)$': '<rootDir>/packages/$1',
    '^arquero$': '<rootDir>/node_modules/arquero/dist/arquero.js',
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 120000,
  // jest's default, one worker fewer than the cores, is a single worker on 2 cores, and the second core idles
  // whenever the test in it is single-threaded or waits on its child processes or servers. Two workers there;
  // more cores keep the default.
  maxWorkers: Math.max(2, (os.availableParallelism?.() ?? os.cpus().length) - 1),
  reporters: ['default', '<rootDir>/tools/jest-summary-reporter.js'],
};
