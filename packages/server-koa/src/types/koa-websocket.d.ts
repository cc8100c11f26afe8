/**
 * The part of koa-websocket that Sluice uses. Not @types/koa-websocket: it augments every Koa `Context` with a
 * required `websocket`, which no HTTP route has.
 */
declare module "koa-websocket" {
  import type Koa from "koa";
  import type { ServerOptions, WebSocket, WebSocketServer } from "ws";

  /** The context a WebSocket middleware gets: Koa's, built from the upgrade request, plus the accepted socket. */
  export type WebSocketContext = Koa.Context & { websocket: WebSocket };
  export type Middleware = (ctx: WebSocketContext, next: () => Promise<unknown>) => unknown;

  export interface App extends Koa {
    readonly ws: {
      use(middleware: Middleware): unknown;
      /** Created by `app.listen`, on the HTTP server it returns. */
      readonly server?: WebSocketServer;
    };
  }

  /** Gives `app` a WebSocket middleware stack (`app.ws`) served on the server `app.listen` creates. */
  export default function websockify(app: Koa, wsOptions?: ServerOptions): App;
}
