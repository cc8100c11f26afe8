
export const CONNECTION_TYPES = ["postgres", "mysql", "sqlite", "http", "sftp", "s3", "generic"] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

export const CONN_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const MASKED_SECRET = "********";

export interface Connection {
  id: string;
  conn_id: string;
  type: ConnectionType;
  host: string;
  port: number | null;
  schema: string;
  login: string;
  password: string;
  extra?: string;
  created_at: string;
  updated_at: string;
}

export interface ConnectionTypeInfo {
  type: ConnectionType;
  label: string;
  fields: string[];
}

export interface ConnectionTestResult {
  success: boolean;
  message?: string;
  driver?: string;
  error?: string;
}
