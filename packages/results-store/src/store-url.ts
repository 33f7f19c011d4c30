/** Whether a store location is a PostgreSQL URL (`postgresql://…` or `postgres://…`) rather than a file path. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL as it may be shown: the password (in the authority or as `password=` in the query) replaced by `***`. */
export function redactUrl(location: string): string {
  if (!isPostgresUrl(location)) return location;
  return location.replace(/^(postgres(?:ql)?:\/\/[^:@/]*:)[^@/]*@/i, '$1***@').replace(/([?&]password=)[^&]*/i, '$1***');
}
