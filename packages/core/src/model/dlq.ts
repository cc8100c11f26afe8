export interface DlqEntry {
  id: string;
  pipeline_id: string;
  run_id: string;
  node_id: string;
  node_name: string;
  error: string;
  payload: unknown;
  created_at: string;
  resolved: boolean;
  resolved_at: string | null;
}
