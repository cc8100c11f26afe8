/**
 * Where to go after signing in: `?next=` only when it is a path on this site ("/pipelines?x=1"). Anything that could
 * leave the site is refused (open-redirect guard): "//evil.example", "/\evil.example", "https://…", "javascript:…",
 * control characters. The auth pages themselves are not a destination either.
 */
export function safeNext(next: string | null | undefined): string {
  if (!next || next.length > 2048) return "/";
  if (!next.startsWith("/") || next.startsWith("//")) return "/";
  // backslashes are read as slashes by browsers ("/\host"); control characters and whitespace can hide a scheme
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f\s]/.test(next)) return "/";
  const parsed = new URL(next, window.location.origin);
  if (parsed.origin !== window.location.origin) return "/";
  if (parsed.pathname === "/login" || parsed.pathname === "/setup") return "/";
  return parsed.pathname + parsed.search + parsed.hash;
}
