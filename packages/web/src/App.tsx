import { QueryClientProvider } from "@tanstack/react-query";
import { lazy, Suspense, type ComponentType } from "react";
import { BrowserRouter, Route, Routes } from "react-router";
import { Layout } from "./components/Layout";
import { Loading } from "./components/Loading";
import { queryClient } from "./lib/api";
import { basePath } from "./lib/base";
import { LiveProvider } from "./lib/live";
import { RequireSession } from "./lib/session";

// Every view is its own chunk: the first page loads only what it draws.
const LOADERS = {
  setup: () => import("./views/Setup"),
  login: () => import("./views/Login"),
  dashboard: () => import("./views/Dashboard"),
  pipelines: () => import("./views/Pipelines"),
  pipeline: () => import("./views/Pipeline"),
  run: () => import("./views/Run"),
  connections: () => import("./views/Connections"),
  variables: () => import("./views/Variables"),
  dlq: () => import("./views/Dlq"),
  lineage: () => import("./views/Lineage"),
  users: () => import("./views/Users"),
  notFound: () => import("./views/NotFound"),
} satisfies Record<string, () => Promise<{ default: ComponentType }>>;

/** The view a path shows (the router's table below, in one regular expression each). */
function viewOf(pathname: string): keyof typeof LOADERS {
  const path = pathname.slice(basePath.length) || "/";
  if (path === "/") return "dashboard";
  if (/^\/pipelines\/?$/.test(path)) return "pipelines";
  if (/^\/pipelines\/[^/]+\/?$/.test(path)) return "pipeline";
  if (/^\/runs\/[^/]+\/?$/.test(path)) return "run";
  const first = /^\/([a-z]+)\/?$/.exec(path)?.[1];
  return first && first in LOADERS && first !== "pipeline" && first !== "run"
    ? (first as keyof typeof LOADERS)
    : "notFound";
}

type ViewModule = { default: ComponentType };
const loaded = new Map<keyof typeof LOADERS, ViewModule>();

/** Loads a view's code (once) and remembers it. */
export function preloadView(name: keyof typeof LOADERS): Promise<ViewModule> {
  return LOADERS[name]().then((module) => {
    loaded.set(name, module);
    return module;
  });
}

/**
 * React.lazy over a view whose code may already be here: then the loader answers synchronously and the view renders
 * at once, instead of suspending for a tick (React throttles revealing a suspended boundary by 300 ms).
 */
function view(name: keyof typeof LOADERS) {
  return lazy(() => {
    const module = loaded.get(name);
    if (!module) return preloadView(name);
    return { then: (resolve: (m: ViewModule) => void) => resolve(module) } as unknown as Promise<ViewModule>;
  });
}

/** The first view's code, loaded while the session is checked (main.tsx waits for it before the first render). */
export const firstView: Promise<unknown> = preloadView(viewOf(window.location.pathname)).catch(() => undefined);

const Setup = view("setup");
const Login = view("login");
const Dashboard = view("dashboard");
const Pipelines = view("pipelines");
const Pipeline = view("pipeline");
const Run = view("run");
const Connections = view("connections");
const Variables = view("variables");
const Dlq = view("dlq");
const Lineage = view("lineage");
const Users = view("users");
const NotFound = view("notFound");

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename={basePath || "/"}>
        <Suspense fallback={<Loading />}>
          <Routes>
            <Route path="/setup" element={<Setup />} />
            <Route path="/login" element={<Login />} />
            <Route
              element={
                <RequireSession>
                  <LiveProvider>
                    <Layout />
                  </LiveProvider>
                </RequireSession>
              }
            >
              <Route index element={<Dashboard />} />
              <Route path="/pipelines" element={<Pipelines />} />
              <Route path="/pipelines/:id" element={<Pipeline />} />
              <Route path="/runs/:id" element={<Run />} />
              <Route path="/connections" element={<Connections />} />
              <Route path="/variables" element={<Variables />} />
              <Route path="/dlq" element={<Dlq />} />
              <Route path="/lineage" element={<Lineage />} />
              <Route path="/users" element={<Users />} />
              <Route path="*" element={<NotFound />} />
            </Route>
          </Routes>
        </Suspense>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
