import * as rules from "@sluice/core/input-rules";

// The server's own input rules (bundled in from the model), for forms that check before sending.
/** Connection ids: lower-case letters, digits, `_` and `-`, starting with a letter or digit, at most 63. */
export const CONN_ID_PATTERN: RegExp = rules.CONN_ID_PATTERN;
/** What the API answers instead of a secret, and what a write may send to keep the stored one. */
export const MASKED_SECRET: string = rules.MASKED_SECRET;
/** Variable keys, as `${var.KEY}` references them. */
export const VARIABLE_KEY_PATTERN: RegExp = rules.VARIABLE_KEY_PATTERN;
export const MIN_PASSWORD_LENGTH: number = rules.MIN_PASSWORD_LENGTH;
export const MAX_PASSWORD_LENGTH: number = rules.MAX_PASSWORD_LENGTH;
