import type Router from "@koa/router";
import type { Sluice } from "@sluice/core";
import { body, pathParam, send } from "../http.js";

const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** `POST /pipelines/{id}/webhook`: authenticated by the pipeline's own token, not by the API's credentials. */
export function registerWebhookRoutes(router: Router, sluice: Sluice): void {
  router.post("/pipelines/:id/webhook", async (ctx) => {
    const queryToken = ctx.query.token;
    const token = (Array.isArray(queryToken) ? queryToken[0] : queryToken) ?? headerValue(ctx.headers["x-webhook-token"]);
    const accepted = await sluice.webhooks.trigger(pathParam(ctx, "id"), {
      token,
      body: body(ctx),
      idempotencyKey: headerValue(ctx.headers["idempotency-key"]),
    });
    send(ctx, 202, accepted);
  });
}
