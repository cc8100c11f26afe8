import { connectGuarded } from "../../engine/http/guarded-socket.js";
import type { Connector } from "../connector.js";

export const genericConnector: Connector = {
  type: "generic",
  label: "Generic (any TCP service)",
  fields: ["host", "port", "login", "password", "extra"],
  driver: "tcp",
  uri: (c) => `tcp://${c.host}${c.port ? `:${c.port}` : ""}`,
  test(c, signal, network) {
    return new Promise<string>((resolve, reject) => {
      if (!c.port) return reject(new Error("a generic connection test needs a port"));
      const socket = connectGuarded(c.host, c.port, network.resolver).setTimeout(5000);
      const done = (e?: Error) => {
        socket.destroy();
        if (e) reject(e);
        else resolve(`TCP connect to ${c.host}:${c.port} succeeded`);
      };
      signal.addEventListener("abort", () => done(new Error("timed out")), { once: true });
      socket
        .once("connect", () => done())
        .once("timeout", () => done(new Error("timed out")))
        .once("error", done);
    });
  },
};
