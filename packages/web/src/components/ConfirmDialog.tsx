import type { ReactNode } from "react";
import { Dialog } from "./Dialog";
import { ErrorBox } from "./ErrorBox";

/** "Are you sure?" before a destructive or far-reaching action; the action's error stays visible inside. */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel = "Delete",
  danger = false,
  busy = false,
  error,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel?: string;
  /** The confirm button in the danger colour (deleting); otherwise the primary one. */
  danger?: boolean;
  busy?: boolean;
  error?: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog open={open} title={title} onClose={onClose}>
      <div className="stack">
        <div>{children}</div>
        <ErrorBox error={error} />
        <div className="actions" style={{ justifyContent: "flex-end" }}>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className={danger ? "danger" : "primary"} disabled={busy} onClick={onConfirm}>
            {busy ? "Working…" : confirmLabel}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
