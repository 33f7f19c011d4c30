/** One jest run covers every package; `npx jest packages/<name>` runs one of them. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/experiments', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking happens in `npm run typecheck`; tests only transpile, which keeps them fast.
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 120000,
  reporters: ['default', '<rootDir>/tools/jest-summary-reporter.js'],
};
