/**
 * A package loaded when first needed, then kept (decision 027). Packages that only some
 * installations or some requests use (PostgreSQL, S3, SMTP, passkeys, SSO, AI, MCP, CSV import)
 * stay out of a fresh server's memory and start-up. The import must name the package itself: a
 * bundled local module's static imports of packages are hoisted into the bundle and load at start.
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load();
    return loaded;
  };
}
