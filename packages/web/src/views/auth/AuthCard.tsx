import { useEffect, type ReactNode } from "react";

/** The frame of the pages outside the app (setup, login): the Sluice mark, a title, a card. */
export function AuthCard({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Sluice`;
  }, [title]);
  return (
    <main className="auth-page">
      <div className="auth-card">
        <div className="brand" style={{ padding: "0 0 18px", fontSize: 20 }}>
          <img src="/favicon.svg" alt="" width={30} height={30} />
          <span>Sluice</span>
        </div>
        <h1 style={{ marginBottom: intro ? 6 : 16 }}>{title}</h1>
        {intro && (
          <p className="muted" style={{ margin: "0 0 16px" }}>
            {intro}
          </p>
        )}
        {children}
      </div>
    </main>
  );
}

/** The full-width submit button of an auth form. */
export const submitStyle = { justifyContent: "center", padding: "8px 12px", marginTop: 4 } as const;
