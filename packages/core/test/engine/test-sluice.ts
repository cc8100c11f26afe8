import { createSluice, silentLogger, type Sluice, type SluiceOptions } from "../../src/index.js";
import type { TestDatabase } from "../../../../test-support/databases.js";
import { pollUntil } from "../../../../test-support/poll.js";
import { FIXTURE_NODE_TYPES } from "./fixture-node-types.js";

/** The JWT secret of the engine tests' instances. */
export const TEST_JWT_SECRET = "0123456789abcdef".repeat(4);

/** An instance on `db` with the fixture node types, not started yet: `options` adds to or overrides that. */
export const createTestSluice = (db: TestDatabase, options: SluiceOptions = {}): Promise<Sluice> =>
  createSluice({
    database: db.url,
    logger: silentLogger,
    jwtSecret: TEST_JWT_SECRET,
    nodeTypes: FIXTURE_NODE_TYPES,
    ...options,
  });

/** A pipeline whose one `code` node holds its run's slot until the run is cancelled. */
export const createSlotHolder = (sluice: Sluice, name = "holds its slot until cancelled") =>
  sluice.pipelines.create({ name, nodes: [{ id: "wait", type: "code", config: { wait_for_abort: true } }], edges: [] });

type Run = Awaited<ReturnType<Sluice["runs"]["get"]>>;

/** The run once it has ended (neither pending nor running), or undefined past pollUntil's deadline. */
export const runEnded = (sluice: Sluice, id: string): Promise<Run | undefined> =>
  pollUntil(async () => {
    const run = await sluice.runs.get(id);
    return run.status === "pending" || run.status === "running" ? undefined : run;
  });
