import { useQueryClient } from "@tanstack/react-query";
import { NavLink, Outlet, useNavigate } from "react-router";
import { client } from "../lib/api";
import { basePath } from "../lib/base";
import { useLive } from "../lib/live";
import { useSession } from "../lib/session";
import { ChangePasswordButton } from "../views/auth/ChangePasswordDialog";

const NAV: { to: string; label: string; admin?: boolean }[] = [
  { to: "/", label: "Dashboard" },
  { to: "/pipelines", label: "Pipelines" },
  { to: "/connections", label: "Connections" },
  { to: "/variables", label: "Variables" },
  { to: "/dlq", label: "Dead letters" },
  { to: "/lineage", label: "Lineage" },
  { to: "/users", label: "Users", admin: true },
];

/** The frame of every signed-in view: navigation, the live indicator, the user and sign-out. */
export function Layout() {
  const { user, can } = useSession();
  const { connected } = useLive();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const logout = async () => {
    await client.call("logout").catch(() => undefined);
    qc.clear();
    navigate("/login");
  };
  return (
    <div className="app">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <img src={`${basePath}/favicon.svg`} alt="" width={22} height={22} /> Sluice
        </div>
        <ul>
          {NAV.filter((item) => !item.admin || can("listUsers")).map((item) => (
            <li key={item.to}>
              <NavLink to={item.to} end={item.to === "/"}>
                {item.label}
              </NavLink>
            </li>
          ))}
        </ul>
        <div className="sidebar-foot">
          <span className={connected ? "live on" : "live off"} title={connected ? "Live updates" : "Reconnecting"}>
            {connected ? "● live" : "○ reconnecting"}
          </span>
          {user && (
            <div className="who">
              <span title={`role: ${user.role}`}>
                {user.username} <span className="muted">({user.role})</span>
              </span>
              <ChangePasswordButton />
              <button type="button" className="ghost" onClick={() => void logout()}>
                Sign out
              </button>
            </div>
          )}
        </div>
      </nav>
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
