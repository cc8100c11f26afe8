import { z } from "zod";

export const ROLES = ["superadmin", "admin", "editor", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export const RoleSchema = z.enum(ROLES);

import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./input-rules.js";

export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH };

export const PasswordSchema = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`);

/**
 * A username as stored and as looked up at login: in Unicode's composed form (NFC), so that `José` typed with a
 * combining accent is the same name as `José` typed with `é`, not a second user that looks the same.
 */
export const normalizedUsername = (name: string) => name.normalize("NFC");

/**
 * Usernames match exactly (case-sensitive, after NFC) on every database; no surrounding whitespace, no control
 * characters, and nothing invisible with which one name would look like another in every list (`admin` and
 * `admin` + U+200B): no formatting characters (zero-width, direction marks and overrides: Unicode's Cf), no default
 * ignorable characters (variation selectors, Hangul fillers) and no Braille blank.
 */
export const UsernameSchema = z
  .string()
  .min(1, "must not be empty")
  .regex(/^\S(?:[^\p{Cc}]*\S)?$/u, "must not start or end with whitespace or contain control characters")
  .regex(
    /^[^\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]*$/u,
    "must not contain invisible characters (zero-width, direction marks, variation selectors, fillers)",
  )
  // `John Smith` with a no-break space, an en space or two spaces would look like `John Smith`
  .regex(/^(?:\S| (?! ))*$/u, "must not contain whitespace other than single plain spaces")
  .transform(normalizedUsername)
  // after NFC, which can lengthen a name (U+FB2C becomes three characters): the column holds 255
  .pipe(z.string().max(255, "must be at most 255 characters"));

export interface User {
  id: string;
  username: string;
  role: Role;
}

export interface LoginResponse {
  token: string;
  user: User;
}

export interface SetupStatus {
  needs_setup: boolean;
}

/** Login checks credentials only; any string is accepted so that a malformed username still counts as a failure. */
export const LoginRequestSchema = z
  .object({
    username: z.string().min(1, "must not be empty").max(255),
    password: z.string().min(1, "must not be empty").max(MAX_PASSWORD_LENGTH),
  })
  .strip();
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

export const CreateUserRequestSchema = z
  .object({
    username: UsernameSchema,
    password: PasswordSchema,
    role: RoleSchema.default("viewer"),
  })
  .strip();
export type CreateUserRequest = z.input<typeof CreateUserRequestSchema>;

export const ChangePasswordRequestSchema = z
  .object({
    current_password: z.string().min(1, "must not be empty").max(MAX_PASSWORD_LENGTH),
    new_password: PasswordSchema,
  })
  .strip();
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequestSchema>;

export const AdminResetPasswordRequestSchema = z
  .object({
    user_id: z.string().min(1, "must not be empty").max(64),
    new_password: PasswordSchema,
  })
  .strip();
export type AdminResetPasswordRequest = z.infer<typeof AdminResetPasswordRequestSchema>;
