import type { Knex } from "knex";

/** Timestamps are ISO 8601 UTC strings: they sort correctly as text in every dialect. */
const ts = (t: Knex.CreateTableBuilder, name: string) => t.string(name, 32);
const json = (t: Knex.CreateTableBuilder, name: string) => t.text(name, "longtext");

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("pipelines", (t) => {
    t.string("id", 36).primary();
    t.string("name", 255).notNullable();
    t.text("description").notNullable();
    t.string("schedule", 255).nullable();
    t.string("schedule_timezone", 64).nullable();
    t.boolean("enabled").notNullable();
    json(t, "tags").notNullable();
    t.integer("node_count").notNullable();
    t.integer("edge_count").notNullable();
    t.string("webhook_token", 255).nullable();
    /** The whole pipeline definition as JSON; the columns above are copies for listing and queries. */
    json(t, "body").notNullable();
    ts(t, "created_at").notNullable();
    ts(t, "updated_at").notNullable();
    t.index(["created_at"], "pipelines_created_at_idx");
    t.index(["name"], "pipelines_name_idx");
  });

  await knex.schema.createTable("pipeline_versions", (t) => {
    t.string("id", 36).primary();
    t.string("pipeline_id", 36).notNullable();
    t.integer("version").notNullable();
    t.string("message", 255).notNullable();
    json(t, "snapshot").notNullable();
    ts(t, "created_at").notNullable();
    t.unique(["pipeline_id", "version"], { indexName: "pipeline_versions_pipeline_version_uq" });
  });

  await knex.schema.createTable("runs", (t) => {
    t.string("id", 36).primary();
    t.string("pipeline_id", 36).notNullable();
    t.string("status", 16).notNullable();
    t.string("trigger", 16).notNullable();
    json(t, "params").notNullable();
    t.text("error").nullable();
    ts(t, "created_at").notNullable();
    ts(t, "started_at").nullable();
    ts(t, "finished_at").nullable();
    /** Executor instance that claimed the run, and its last heartbeat (crash recovery). */
    t.string("owner", 64).nullable();
    ts(t, "heartbeat_at").nullable();
    t.string("idempotency_key", 255).nullable();
    t.index(["pipeline_id", "created_at"], "runs_pipeline_created_idx");
    t.index(["status", "created_at"], "runs_status_created_idx");
    t.index(["created_at"], "runs_created_idx");
  });

  await knex.schema.createTable("node_runs", (t) => {
    t.string("id", 36).primary();
    t.string("run_id", 36).notNullable();
    t.string("node_id", 128).notNullable();
    t.string("status", 16).notNullable();
    t.integer("attempt").notNullable();
    t.bigInteger("row_count").notNullable();
    t.bigInteger("duration_ms").notNullable();
    ts(t, "started_at").nullable();
    ts(t, "finished_at").nullable();
    t.text("error").nullable();
    t.index(["run_id"], "node_runs_run_idx");
  });

  await knex.schema.createTable("run_logs", (t) => {
    t.bigIncrements("id").primary();
    t.string("run_id", 36).notNullable();
    t.string("node_id", 128).nullable();
    t.string("level", 16).notNullable();
    t.text("message").notNullable();
    ts(t, "timestamp").notNullable();
    t.index(["run_id", "id"], "run_logs_run_idx");
  });

  /** Persisted node data: preview (first 50 rows), profile, and full outputs kept for resume. */
  await knex.schema.createTable("node_outputs", (t) => {
    t.string("run_id", 36).notNullable();
    t.string("node_id", 128).notNullable();
    t.string("kind", 16).notNullable();
    json(t, "data").notNullable();
    ts(t, "created_at").notNullable();
    t.primary(["run_id", "node_id", "kind"]);
  });

  await knex.schema.createTable("connections", (t) => {
    t.string("id", 36).primary();
    t.string("conn_id", 64).notNullable().unique("connections_conn_id_uq");
    t.string("type", 16).notNullable();
    t.string("host", 1024).notNullable();
    t.integer("port").nullable();
    t.string("schema", 255).notNullable();
    t.string("login", 255).notNullable();
    t.text("password_enc").nullable();
    json(t, "extra_enc").nullable();
    ts(t, "created_at").notNullable();
    ts(t, "updated_at").notNullable();
  });

  await knex.schema.createTable("variables", (t) => {
    t.string("key", 128).primary();
    t.string("type", 16).notNullable();
    /** Plain text for `string`, AES-256-GCM envelope for `secret`. */
    json(t, "value").notNullable();
    ts(t, "created_at").notNullable();
    ts(t, "updated_at").notNullable();
  });

  await knex.schema.createTable("users", (t) => {
    t.string("id", 36).primary();
    t.string("username", 255).notNullable().unique("users_username_uq");
    t.string("role", 16).notNullable();
    t.string("password_hash", 512).notNullable();
    ts(t, "password_changed_at").notNullable();
    ts(t, "created_at").notNullable();
    ts(t, "updated_at").notNullable();
  });

  await knex.schema.createTable("login_attempts", (t) => {
    t.string("username", 255).primary();
    t.integer("failures").notNullable();
    ts(t, "first_failure_at").notNullable();
    ts(t, "locked_until").nullable();
  });

  await knex.schema.createTable("dlq_entries", (t) => {
    t.string("id", 36).primary();
    t.string("pipeline_id", 36).notNullable();
    t.string("run_id", 36).notNullable();
    t.string("node_id", 128).notNullable();
    t.string("node_name", 255).notNullable();
    t.text("error").notNullable();
    json(t, "payload").notNullable();
    ts(t, "created_at").notNullable();
    t.boolean("resolved").notNullable();
    ts(t, "resolved_at").nullable();
    t.index(["pipeline_id", "resolved", "created_at"], "dlq_pipeline_idx");
    t.index(["run_id"], "dlq_run_idx");
  });

  await knex.schema.createTable("scheduler_state", (t) => {
    t.string("pipeline_id", 36).primary();
    ts(t, "last_slot_at").nullable();
    t.string("last_sla_date", 10).nullable();
    ts(t, "updated_at").notNullable();
  });

  /** Named leases (e.g. the scheduler's), so one instance among several holds a role at a time. */
  await knex.schema.createTable("leases", (t) => {
    t.string("name", 64).primary();
    t.string("owner", 64).notNullable();
    ts(t, "expires_at").notNullable();
  });

  await knex.schema.createTable("webhook_state", (t) => {
    t.string("pipeline_id", 36).primary();
    ts(t, "last_accepted_at").notNullable();
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
