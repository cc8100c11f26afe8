import type { Permission } from "../model/permissions.js";

// What each role holds lives in the model (shared with the client and the web UI).
export { ROLE_PERMISSIONS, roleHasPermission } from "../model/permissions.js";

/** Seeing a pipeline's credentials (its `webhook_token`) goes with being allowed to edit the pipeline. */
export const PIPELINE_SECRETS_PERMISSION: Permission = "pipelines.write";
