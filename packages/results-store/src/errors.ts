/** A file written by a newer schema than this code knows (refused, never guessed at). */
export class SchemaTooNewError extends Error {}

/** A migration that cannot move a file's rows (its transaction is rolled back; the file is unchanged). */
export class MigrationError extends Error {}
