import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App, firstView } from "./App";
import { prefetchOp } from "./lib/api";
import "./styles.css";

// the session check and the first view's code are fetched in parallel; the first render then needs neither to wait
prefetchOp("getSetup");
prefetchOp("getMe");
await firstView;
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
