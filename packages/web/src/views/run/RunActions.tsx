import type { RunWithNodes } from "@sluice/client";
import type { ReactNode } from "react";
import { ErrorBox } from "../../components/ErrorBox";
import { useOpMutation } from "../../lib/api";
import { Can } from "../../lib/session";

const REFRESH = ["getRun", "listRuns", "dashboard", "pipelineSummary"] as const;

/**
 * Cancel (pending or running) and Resume (failed only, as the API allows), each for roles that may call it; the
 * buttons go in the page header, a failure (the API's message) below it.
 */
export function useRunActions(run: RunWithNodes | undefined): { buttons: ReactNode; errors: ReactNode } {
  const cancel = useOpMutation("cancelRun", REFRESH);
  const resume = useOpMutation("resumeRun", REFRESH);
  const params = { run_id: run?.id ?? "" };
  const cancellable = run?.status === "pending" || run?.status === "running";
  const resumable = run?.status === "failed";
  const buttons = (
    <>
      {cancellable && (
        <Can op="cancelRun">
          <button
            type="button"
            className="danger"
            disabled={cancel.isPending}
            title="Stop the run: nodes already executing are stopped, no new node starts"
            onClick={() => {
              resume.reset();
              cancel.mutate({ params });
            }}
          >
            {cancel.isPending ? "Cancelling…" : "Cancel"}
          </button>
        </Can>
      )}
      {resumable && (
        <Can op="resumeRun">
          <button
            type="button"
            className="primary"
            disabled={resume.isPending}
            title="Run again from the first failed node; nodes that succeeded are skipped"
            onClick={() => {
              cancel.reset();
              resume.mutate({ params });
            }}
          >
            {resume.isPending ? "Resuming…" : "Resume"}
          </button>
        </Can>
      )}
    </>
  );
  const errors = (
    <>
      <ErrorBox error={cancel.error} title="Cancel failed" />
      <ErrorBox error={resume.error} title="Resume failed" />
    </>
  );
  return { buttons, errors };
}
