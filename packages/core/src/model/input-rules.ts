/**
 * The rules of user input that a form can check before sending (zod-free, bundled into the client as
 * `@sluice/core/input-rules`, so the web UI checks exactly what the server's schemas enforce).
 */

/** Connection ids: lower-case letters, digits, `_` and `-`, starting with a letter or digit, at most 63. */
export const CONN_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** What the API answers instead of a secret, and what a write may send to keep the stored one. */
export const MASKED_SECRET = "********";
/** Variable keys, as `${var.KEY}` references them. */
export const VARIABLE_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;
/** Passwords: at least 8 characters; the upper bound only keeps hashing cheap for absurd inputs. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;
