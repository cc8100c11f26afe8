import type { Knex } from "knex";
import * as m001 from "./001-initial-schema.js";
import * as m003 from "./003-exact-usernames.js";
import * as m005 from "./005-run-stats-indexes.js";
import * as m007 from "./007-event-log-and-epochs.js";
import * as m008 from "./008-run-schedule-slot.js";
import * as m009 from "./009-change-notifications.js";
import * as m010 from "./010-sqlite-pipeline-writes.js";
import * as m011 from "./011-claim-order-index.js";
import * as m012 from "./012-drop-status-created-index.js";
import * as m013 from "./013-drop-created-index.js";
import * as m014 from "./014-event-log-and-node-run-writes.js";
import * as m015 from "./015-pipeline-change-indexes.js";
import * as m016 from "./016-pipeline-depends-on.js";

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Numbered, append-only. Add a new entry for every schema change; never edit a released one. */
export const MIGRATIONS: readonly (readonly [name: string, migration: Migration])[] = [
  ["001-initial-schema", m001],
  ["003-exact-usernames", m003],
  ["005-run-stats-indexes", m005],
  ["007-event-log-and-epochs", m007],
  ["008-run-schedule-slot", m008],
  ["009-change-notifications", m009],
  ["010-sqlite-pipeline-writes", m010],
  ["011-claim-order-index", m011],
  ["012-drop-status-created-index", m012],
  ["013-drop-created-index", m013],
  ["014-event-log-and-node-run-writes", m014],
  ["015-pipeline-change-indexes", m015],
  ["016-pipeline-depends-on", m016],
];

/** Bundling-safe migration source (no directory scanning). */
export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => MIGRATIONS.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const found = MIGRATIONS.find(([n]) => n === name);
    if (!found) throw new Error(`unknown migration ${name}`);
    return found[1];
  },
};

export const MIGRATIONS_TABLE = "sluice_migrations";
