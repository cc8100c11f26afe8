import type { ReactNode } from "react";

/**
 * A labelled control with its hint or error below, outside the <label>: the control's accessible name stays its
 * label alone ("Password", not "Password At least 8 characters"); the hint is tied to it by `aria-describedby`.
 */
export function Field({
  children,
  hint,
  error,
  id,
}: {
  children: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  /** The id the control's aria-describedby names. */
  id?: string;
}) {
  const text = error || hint;
  return (
    <div style={{ display: "flex", flexDirection: "column", gap: 4 }}>
      {children}
      {text && (
        <span
          id={id}
          className={error ? undefined : "muted"}
          role={error ? "alert" : undefined}
          style={{ fontSize: 12, color: error ? "var(--danger)" : undefined }}
        >
          {text}
        </span>
      )}
    </div>
  );
}
