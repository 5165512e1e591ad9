/** A query key's parameters as a query string: a list is a parameter given once per value (`label=a&label=b`). */
export function searchParams(params: Record<string, string | readonly string[]>): URLSearchParams {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const one of typeof value === 'string' ? [value] : value) query.append(key, one);
  }
  return query;
}
