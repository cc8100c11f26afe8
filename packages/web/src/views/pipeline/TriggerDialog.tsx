import type { Pipeline } from "@sluice/client";
import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { Dialog } from "../../components/Dialog";
import { useOpMutation } from "../../lib/api";
import { ErrorBox } from "../../components/ErrorBox";

/**
 * Trigger a run with parameters: one field per pipeline param (prefilled with its default), plus free extra params as
 * JSON. On success it goes to the new run's page.
 */
export function TriggerDialog({ pipeline, open, onClose }: { pipeline: Pipeline; open: boolean; onClose: () => void }) {
  const navigate = useNavigate();
  const defaults = pipeline.params ?? {};
  const keys = Object.keys(defaults);
  const [values, setValues] = useState<Record<string, string>>(defaults);
  const [extra, setExtra] = useState(keys.length ? "" : "{}");
  const [parseError, setParseError] = useState<string | null>(null);
  const trigger = useOpMutation("triggerRun", ["listRuns", "pipelineSummary", "dashboard"]);
  const [prevOpen, setPrevOpen] = useState(open);
  if (open !== prevOpen) {
    setPrevOpen(open);
    if (open) {
      setValues(defaults);
      setExtra(keys.length ? "" : "{}");
      setParseError(null);
      trigger.reset();
    }
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    let more: Record<string, string> = {};
    if (extra.trim() !== "") {
      try {
        const parsed: unknown = JSON.parse(extra);
        if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("expected an object");
        more = Object.fromEntries(
          Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [
            k,
            typeof v === "string" ? v : JSON.stringify(v),
          ]),
        );
      } catch (err) {
        setParseError(`Params must be a JSON object of strings: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
    }
    setParseError(null);
    // send only what differs from the defaults: the run records what was overridden
    const params: Record<string, string> = {};
    for (const k of keys) if (values[k] !== defaults[k]) params[k] = values[k] ?? "";
    Object.assign(params, more);
    trigger.mutate(
      { params: { id: pipeline.id }, body: { params } },
      {
        onSuccess: (run) => {
          onClose();
          navigate(`/runs/${encodeURIComponent(run.id)}`);
        },
      },
    );
  };

  return (
    <Dialog open={open} title={`Trigger ${pipeline.name}`} onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        {keys.length > 0 ? (
          <fieldset className="pl-params">
            <legend>Parameters</legend>
            {keys.map((k) => (
              <label key={k}>
                <span>
                  <code>{k}</code>{" "}
                  <span className="muted">default: {defaults[k] === "" ? "(empty)" : defaults[k]}</span>
                </span>
                <input value={values[k] ?? ""} onChange={(e) => setValues({ ...values, [k]: e.target.value })} />
              </label>
            ))}
          </fieldset>
        ) : (
          <p className="muted pl-help">This pipeline defines no parameters. You can still pass some as JSON.</p>
        )}
        <label>
          {keys.length > 0 ? "Extra parameters (JSON object, optional)" : "Parameters (JSON object)"}
          <textarea
            value={extra}
            onChange={(e) => setExtra(e.target.value)}
            rows={keys.length > 0 ? 3 : 6}
            spellCheck={false}
            placeholder='{"date": "2026-01-01"}'
          />
        </label>
        {parseError && (
          <div className="error-box" role="alert">
            {parseError}
          </div>
        )}
        <ErrorBox error={trigger.error} title="Could not trigger" />
        <div className="pl-dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={trigger.isPending}>
            {trigger.isPending ? "Triggering…" : "Run now"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
