import type { Page } from "@sluice/client";

/** The rows of a list answer: a plain array, or the pagination envelope when `page`/`per_page` was sent. */
export function listItems<T>(data: T[] | Page<T> | undefined): T[] {
  if (!data) return [];
  return Array.isArray(data) ? data : data.items;
}
