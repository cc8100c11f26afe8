import { withoutUrlSecrets } from "../engine/secret-scrubber.js";
import { PIPELINE_SECRETS_PERMISSION, roleHasPermission } from "./permissions.js";
import type { Principal } from "./principal.js";

/** Whether this caller may see pipeline credentials (`webhook_token`): editors and above, an API key, open mode. */
export function seesPipelineSecrets(principal: Principal | undefined): boolean {
  if (!principal || principal.kind === "guest") return false;
  return roleHasPermission(principal.user.role, PIPELINE_SECRETS_PERMISSION);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * A response body as `principal` may see it. For callers without PIPELINE_SECRETS_PERMISSION, every object that
 * carries `webhook_token` — wherever a pipeline is serialized (get, list, summary, search, dashboard, export, …)
 * — carries `webhook_configured: true|false` in its place, every `hooks` list shows their header values and their
 * URL beyond the origin (Slack-style hook URLs are credentials) as `********`, and a connection's `host` has its URL
 * password and secret-named query values masked. Applied by adapters to every response,
 * so a new route cannot forget it. Values other than plain objects and arrays pass through untouched.
 */
export function hideSecretsFrom<T>(principal: Principal | undefined, body: T): T {
  return seesPipelineSecrets(principal) ? body : (withoutWebhookTokens(body) as T);
}

const MASK = "********";

function withoutWebhookTokens(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutWebhookTokens);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === "webhook_token") out.webhook_configured = typeof field === "string" && field !== "";
    // pipelines in an export document carry hooks but no webhook_token, so hooks are found by name
    else if (key === "hooks" && Array.isArray(field)) out.hooks = field.map(maskedHook);
    // a connection's host may be a URL with a password or an `?api_key=` in it
    else if (key === "host" && typeof field === "string" && typeof value.conn_id === "string")
      out.host = withoutUrlSecrets(field);
    else out[key] = withoutWebhookTokens(field);
  }
  return out;
}

function maskedHook(hook: unknown): unknown {
  if (!isPlainObject(hook)) return hook;
  const { url, headers, ...rest } = hook;
  return {
    ...rest,
    ...(url !== undefined ? { url: maskedUrl(url) } : {}),
    ...(isPlainObject(headers)
      ? { headers: Object.fromEntries(Object.keys(headers).map((name) => [name, MASK])) }
      : {}),
  };
}

/** The origin stays (where events go is not a secret); path, query and credentials are masked. */
function maskedUrl(url: unknown): string {
  try {
    const parsed = new URL(String(url));
    return parsed.pathname === "/" && !parsed.search && !parsed.username && !parsed.password
      ? parsed.origin
      : `${parsed.origin}/${MASK}`;
  } catch {
    return MASK;
  }
}
