/**
 * Where the UI is served: `` at the server root, or an embedder's mount path (`/etl`). The server writes it into
 * index.html; the router, API calls and the event stream all start there.
 */
export const basePath: string =
  document.querySelector<HTMLMetaElement>('meta[name="sluice-base"]')?.content.replace(/\/+$/, "") ?? "";
