import { z } from "zod";

/** Default and maximum page size for every paginated list (docs/http.md). */
export const PER_PAGE_DEFAULT = 50;
export const PER_PAGE_MAX = 500;

/** Pages beyond this are empty anyway; the cap keeps OFFSET within every database's integer range. */
const PAGE_MAX = 1_000_000_000;

/** Digits only, at least 1; a value beyond the safe-integer range is still a (very large) positive integer. */
const positiveIntString = (name: string) =>
  z
    .string()
    .regex(/^[0-9]+$/, `${name} must be a positive integer`)
    .transform(Number)
    .refine((n) => n >= 1, `${name} must be a positive integer`);

/**
 * Builds a query-string integer: values that are not positive integers are rejected, values above `max` are
 * clamped to it (docs/http.md).
 */
export function clampedIntQuery(name: string, defaultValue: number, max: number) {
  return positiveIntString(name)
    .transform((n) => Math.min(n, max))
    .optional()
    .transform((n) => n ?? defaultValue);
}

export const PaginationQuerySchema = z.object({
  page: positiveIntString("page")
    .transform((n) => Math.min(n, PAGE_MAX))
    .optional(),
  per_page: positiveIntString("per_page")
    .transform((n) => Math.min(n, PER_PAGE_MAX))
    .optional(),
});
export type PaginationQuery = z.infer<typeof PaginationQuerySchema>;

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  per_page: number;
  pages: number;
}

export interface PageRequest {
  page: number;
  per_page: number;
}
