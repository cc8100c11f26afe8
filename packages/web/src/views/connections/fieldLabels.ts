import type { ConnectionType } from "@sluice/client";

export const DEFAULT_PORTS: Partial<Record<ConnectionType, number>> = { postgres: 5432, mysql: 3306, sftp: 22 };

export function hostLabel(type: ConnectionType): string {
  switch (type) {
    case "sqlite":
      return "Database file";
    case "http":
      return "Base URL";
    case "postgres":
    case "mysql":
    case "sftp":
    case "s3":
    case "generic":
      return "Host";
  }
}

export function hostPlaceholder(type: ConnectionType): string {
  switch (type) {
    case "sqlite":
      return "files/warehouse.db";
    case "http":
      return "https://api.example.com";
    case "postgres":
    case "mysql":
    case "sftp":
    case "generic":
      return "db.internal.example.com";
    case "s3":
      return "";
  }
}

export function extraPlaceholder(type: ConnectionType): string {
  switch (type) {
    case "s3":
      return '{"bucket": "raw-data", "region": "eu-west-1", "access_key_id": "…", "secret_access_key": "…"}';
    case "http":
      return '{"headers": {"Accept": "application/json"}, "token": "…"}';
    case "sftp":
      return '{"private_key": "-----BEGIN OPENSSH PRIVATE KEY-----…", "passphrase": "…"}';
    case "postgres":
      return '{"sslmode": "require"}';
    case "mysql":
    case "sqlite":
    case "generic":
      return "{}";
  }
}

/** host:port/schema as one line, for the list. */
export function targetOf(c: { type: ConnectionType; host: string; port: number | null; schema: string }): string {
  if (c.type === "s3") return "";
  let out = c.host;
  if (c.port !== null && c.port !== undefined && out !== "") out += `:${c.port}`;
  if (c.schema) out += `/${c.schema}`;
  return out;
}
