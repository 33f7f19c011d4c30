/** @rred/results-store/testing — test helpers: temporary store directories, a fixed run context, a sample bundle, a throwaway PostgreSQL server. */
export { FIXED_CONTEXT, queryStore, sampleBundle, tempDir } from './src/testing-helpers';
export { postgresTestsEnabled, startTestPostgres, type TestPostgres } from './src/pg/test-server';
