export interface SystemInfo {
  version: string;
  db_size: number;
  db_size_mb: string;
  pipelines: number;
  active_runs: number;
  max_concurrent_runs: number;
  store: string;
  uptime_s: number;
}
