import { useState, type ChangeEvent, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { Dialog } from "../../components/Dialog";
import { useOpMutation } from "../../lib/api";
import { ErrorBox } from "../../components/ErrorBox";

/** A minimal pipeline to start from ("New pipeline"): one code node, valid as is. */
export const NEW_PIPELINE_TEMPLATE = `{
  "name": "my_pipeline",
  "description": "",
  "schedule": null,
  "enabled": false,
  "tags": [],
  "params": {},
  "nodes": [
    { "id": "extract", "type": "code", "name": "Extract", "config": { "code": "return [{ n: 1 }];" } }
  ],
  "edges": []
}
`;

/**
 * Import a pipeline from JSON (an export document or a bare pipeline object), pasted or read from a file. On success
 * it goes to the new pipeline; on failure the API's message (and its validation list) stays in the dialog.
 */
export function ImportDialog({
  open,
  onClose,
  title = "Import pipeline",
  initialText = "",
}: {
  open: boolean;
  onClose: () => void;
  title?: string;
  initialText?: string;
}) {
  const navigate = useNavigate();
  const [text, setText] = useState(initialText);
  const [parseError, setParseError] = useState<string | null>(null);
  const [fileName, setFileName] = useState<string | null>(null);
  const importer = useOpMutation("importPipeline", ["listPipelines", "pipelineSummary", "dashboard"]);
  const [prevOpen, setPrevOpen] = useState(open);
  if (open !== prevOpen) {
    // each opening starts afresh
    setPrevOpen(open);
    if (open) {
      setText(initialText);
      setParseError(null);
      setFileName(null);
      importer.reset();
    }
  }

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    setFileName(file.name);
    setText(await file.text());
    setParseError(null);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      setParseError(`Not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    setParseError(null);
    importer.mutate(
      { body: body as never },
      {
        onSuccess: (pipeline) => {
          onClose();
          navigate(`/pipelines/${encodeURIComponent(pipeline.id)}`);
        },
      },
    );
  };

  return (
    <Dialog open={open} title={title} onClose={onClose} wide>
      <form className="stack" onSubmit={submit}>
        <p className="muted pl-help">
          Paste a pipeline as JSON — an exported document (<code>{'{"sluice_export": 1, "pipeline": {…}}'}</code>) or a
          bare pipeline object — or choose a file.
        </p>
        <label>
          JSON file
          <input type="file" accept="application/json,.json" onChange={(e) => void onFile(e)} />
        </label>
        {fileName && <span className="muted">Loaded {fileName}</span>}
        <label>
          Pipeline JSON
          <textarea
            value={text}
            onChange={(e) => setText(e.target.value)}
            rows={16}
            spellCheck={false}
            placeholder='{ "name": "orders", "nodes": [], "edges": [] }'
          />
        </label>
        {parseError && (
          <div className="error-box" role="alert">
            {parseError}
          </div>
        )}
        <ErrorBox error={importer.error} title="Import failed" />
        <div className="pl-dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={importer.isPending || text.trim() === ""}>
            {importer.isPending ? "Importing…" : "Import"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
