import { onTestFinished } from "vitest";
import { createSluice, isTerminalRunStatus, silentLogger, type Sluice, type SluiceOptions } from "../../src/index.js";
import type { DialectName } from "../../src/store/ports.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";
import { TEST_JWT_SECRET } from "../../../../test-support/secrets.js";
import { pollUntil } from "../../../../test-support/poll.js";
import { FIXTURE_NODE_TYPES } from "./fixture-node-types.js";

/** An instance on `db` with the fixture node types, not started yet: `options` adds to or overrides that. */
export const createTestSluice = (db: TestDatabase, options: SluiceOptions = {}): Promise<Sluice> =>
  createSluice({
    database: db.url,
    logger: silentLogger,
    jwtSecret: TEST_JWT_SECRET,
    nodeTypes: FIXTURE_NODE_TYPES,
    ...options,
  });

/**
 * A started instance (createTestSluice) on a throw-away database of `dialect`: closed, and the database dropped, when
 * the calling test finishes.
 */
export async function startTestSluice(dialect: DialectName, options: SluiceOptions = {}): Promise<Sluice> {
  const db = await createTestDatabase(dialect);
  const sluice = await createTestSluice(db, options).catch(async (e: unknown) => {
    await db.drop();
    throw e;
  });
  onTestFinished(async () => {
    await sluice.close();
    await db.drop();
  });
  await sluice.start();
  return sluice;
}

/** A pipeline whose one `code` node holds its run's slot until the run is cancelled. */
export const createSlotHolder = (sluice: Sluice, name = "holds its slot until cancelled") =>
  sluice.pipelines.create({ name, nodes: [{ id: "wait", type: "code", config: { wait_for_abort: true } }], edges: [] });

type Run = Awaited<ReturnType<Sluice["runs"]["get"]>>;

/** Under vitest's 30 s limit for a test, so that a run that never ends fails with its own message. */
const RUN_END_DEADLINE_MS = 20_000;

/** The run once it has ended (success, failed or cancelled); throws if it has not within RUN_END_DEADLINE_MS. */
export async function runEnded(sluice: Sluice, id: string): Promise<Run> {
  const run = await pollUntil(
    async () => {
      const now = await sluice.runs.get(id);
      return isTerminalRunStatus(now.status) ? now : undefined;
    },
    { timeoutMs: RUN_END_DEADLINE_MS },
  );
  if (!run) throw new Error(`run ${id} did not end within ${RUN_END_DEADLINE_MS / 1000} s`);
  return run;
}
