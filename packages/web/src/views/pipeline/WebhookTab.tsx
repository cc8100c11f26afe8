import type { Pipeline } from "@sluice/client";
import { useState } from "react";
import { useOpMutation } from "../../lib/api";
import { Can, useSession } from "../../lib/session";
import { ErrorBox } from "../../components/ErrorBox";
import { basePath } from "../../lib/base";
import { ConfirmDialog } from "../../components/ConfirmDialog";

function newToken(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className="pl-small"
      aria-label={label}
      onClick={() =>
        void navigator.clipboard?.writeText(text).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        })
      }
    >
      {done ? "Copied" : "Copy"}
    </button>
  );
}

/**
 * The webhook trigger: its URL, and for editors the token (the API sends it only to them; viewers get
 * `webhook_configured`), with generate/remove.
 */
export function WebhookTab({ pipeline }: { pipeline: Pipeline }) {
  const { can } = useSession();
  const token = pipeline.webhook_token ?? null;
  const configured =
    token !== null && token !== "" ? true : Boolean((pipeline as { webhook_configured?: boolean }).webhook_configured);
  const url = `${window.location.origin}${basePath}/api/pipelines/${encodeURIComponent(pipeline.id)}/webhook`;
  const [reveal, setReveal] = useState(true);
  const [confirm, setConfirm] = useState<null | "rotate" | "remove">(null);
  const patch = useOpMutation("patchPipeline", ["getPipeline"]);
  const setToken = (value: string | null) =>
    patch.mutate(
      { params: { id: pipeline.id }, body: { webhook_token: value } },
      {
        onSuccess: () => {
          setConfirm(null);
          setReveal(value !== null);
        },
      },
    );
  const showsToken = can("patchPipeline") && token;

  return (
    <div className="stack">
      <section className="panel">
        <h3>Webhook trigger</h3>
        <p>
          Status:{" "}
          {configured ? (
            <span className="status status-success">configured</span>
          ) : (
            <span className="status status-never-run">not configured</span>
          )}
        </p>
        <dl className="pl-dl pl-dl-wide">
          <dt>URL</dt>
          <dd className="pl-copy-row">
            <code className="pl-code-box">POST {url}</code>
            <CopyButton text={url} label="Copy webhook URL" />
          </dd>
          {showsToken && (
            <>
              <dt>Token</dt>
              <dd className="pl-copy-row">
                <code className="pl-code-box" aria-label="Webhook token">
                  {reveal ? token : "•".repeat(Math.min(token.length, 32))}
                </code>
                <button type="button" className="pl-small" onClick={() => setReveal(!reveal)}>
                  {reveal ? "Hide" : "Show"}
                </button>
                <CopyButton text={token} label="Copy webhook token" />
              </dd>
              <dt>Example</dt>
              <dd>
                <pre className="pl-json">{`curl -X POST '${url}' \\\n  -H 'X-Webhook-Token: ${reveal ? token : "<token>"}' \\\n  -H 'Content-Type: application/json' \\\n  -d '{"params": {}}'`}</pre>
              </dd>
            </>
          )}
        </dl>
        {!can("patchPipeline") && configured && <p className="muted">The token is shown to editors only.</p>}
        <p className="muted pl-help">
          Send the token in the <code>X-Webhook-Token</code> header (or <code>?token=</code>). At most one trigger per
          pipeline every 10 seconds; an optional body <code>{'{"params": {…}}'}</code> overrides run parameters.
        </p>
        <Can op="patchPipeline">
          <div className="row">
            <button type="button" onClick={() => (configured ? setConfirm("rotate") : setToken(newToken()))}>
              {configured ? "Generate new token" : "Enable webhook (generate token)"}
            </button>
            {configured && (
              <button type="button" className="danger" onClick={() => setConfirm("remove")}>
                Remove token
              </button>
            )}
          </div>
        </Can>
        {confirm === null && <ErrorBox error={patch.error} title="Could not change the token" />}
      </section>
      <ConfirmDialog
        open={confirm !== null}
        title={confirm === "remove" ? "Remove the webhook token?" : "Generate a new webhook token?"}
        confirmLabel={confirm === "remove" ? "Remove token" : "Generate"}
        danger={confirm === "remove"}
        busy={patch.isPending}
        error={patch.error}
        onClose={() => setConfirm(null)}
        onConfirm={() => setToken(confirm === "remove" ? null : newToken())}
      >
        <p>
          {confirm === "remove"
            ? "Webhook calls will be refused until a new token is set."
            : "The current token stops working at once; callers must use the new one."}
        </p>
      </ConfirmDialog>
    </div>
  );
}
