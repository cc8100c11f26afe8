import { Client } from "ssh2";
import { connectGuarded } from "../../engine/http/guarded-socket.js";
import type { Connector } from "../connector.js";

export const sftpConnector: Connector = {
  type: "sftp",
  label: "SFTP / SSH",
  fields: ["host", "port", "login", "password", "extra"],
  driver: "ssh2",
  uri: (c) => `sftp://${encodeURIComponent(c.login)}@${c.host}:${c.port ?? 22}`,
  test(c, signal, network) {
    return new Promise<string>((resolve, reject) => {
      const client = new Client();
      const fail = (e: Error) => {
        client.end();
        reject(e);
      };
      signal.addEventListener("abort", () => fail(new Error("timed out")), { once: true });
      client
        .on("ready", () =>
          client.sftp((err) => {
            if (err) return fail(err);
            client.end();
            resolve(`opened an SFTP session on ${c.host}:${c.port ?? 22}`);
          }),
        )
        .on("error", fail)
        .connect({
          // ssh2 would connect by itself; the guarded socket keeps it off metadata addresses
          sock: connectGuarded(c.host, c.port ?? 22, network.resolver),
          host: c.host,
          port: c.port ?? 22,
          username: c.login,
          password: c.password || undefined,
          privateKey: typeof c.extra.private_key === "string" ? c.extra.private_key : undefined,
          passphrase: typeof c.extra.passphrase === "string" ? c.extra.passphrase : undefined,
          readyTimeout: 5000,
        });
    });
  },
};
