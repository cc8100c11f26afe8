import { SluiceError } from "../../errors.js";
import { dataSetFromRows, type Row } from "../dataset.js";
import { describeUrl } from "../http/http-client.js";
import {
  headersFor,
  nodeRequestSignal,
  parseJsonBody,
  renderJson,
  resolveHttpTarget,
  sendChecked,
  valueAtPath,
} from "../http/http-target.js";
import { defineNodeType } from "../node-type.js";
import { z } from "zod";
import { loose, httpTarget } from "./config-parts.js";
import { apiTarget } from "./references.js";

const DEFAULT_MAX_PAGES = 100;

function rowsOf(body: unknown, rowsPath: string | undefined, url: string): Row[] {
  const found = valueAtPath(body, rowsPath);
  if (!Array.isArray(found)) {
    const where = rowsPath ? `at '${rowsPath}'` : "at the top level (set rows_path)";
    throw new SluiceError("unprocessable", `response from ${describeUrl(url)} has no array ${where}`);
  }
  return found.map((item) =>
    item !== null && typeof item === "object" && !Array.isArray(item) ? (item as Row) : { value: item },
  );
}

export const sourceApiConfig = loose({
  ...httpTarget,
  body: z.unknown().optional(),
  rows_path: z.string().optional(),
  next_url_path: z.string().min(1).optional(),
  page_param: z.string().min(1).optional(),
  offset_param: z.string().min(1).optional(),
  page_start: z.number().int().optional(),
  page_size: z.number().int().min(1).optional(),
  page_size_param: z.string().min(1).optional(),
  max_pages: z.number().int().min(1).max(10_000).optional(),
})
  .refine((c) => Boolean(c.url) || Boolean(c.conn_id), "url or conn_id is required")
  .refine((c) => !(c.page_param && c.offset_param), "use page_param or offset_param, not both")
  .refine((c) => !c.offset_param || c.page_size !== undefined, "page_size is required with offset_param");

/**
 * `source_api`: reads rows from a JSON HTTP API, following pagination (`next_url_path`, or `page_param` /
 * `offset_param` with `page_size`) up to `max_pages` pages.
 */
export const sourceApiNode = defineNodeType({
  type: "source_api",
  configSchema: sourceApiConfig,
  references: (c) => ({ apisRead: apiTarget(c) }),
  async run(ctx, config) {
    const target = await resolveHttpTarget(ctx, config, "GET");
    const body = config.body === undefined ? undefined : await renderJson(ctx, config.body);
    const bodyText = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const signal = nodeRequestSignal(ctx);
    const maxPages = config.max_pages ?? DEFAULT_MAX_PAGES;
    const paged = Boolean(config.page_param || config.offset_param);
    const rows: Row[] = [];
    let url = target.url;
    let page = config.page_start ?? (config.offset_param ? 0 : 1);
    for (let n = 1; n <= maxPages; n++) {
      let pageUrl = url;
      if (paged) {
        const u = new URL(url);
        u.searchParams.set((config.page_param ?? config.offset_param)!, String(page));
        if (config.page_size !== undefined && config.page_size_param)
          u.searchParams.set(config.page_size_param, String(config.page_size));
        pageUrl = u.href;
      }
      // a next link to another origin gets none of the headers that may carry a credential
      const headers = headersFor(target, pageUrl);
      const res = await sendChecked(ctx, { ...target, url: pageUrl, headers }, bodyText, signal);
      const json = parseJsonBody(res);
      const pageRows = rowsOf(json, config.rows_path, res.url);
      // one by one: spread as arguments, a page of some 150,000 rows overflowed the stack
      for (const row of pageRows) rows.push(row);
      ctx.log("info", `page ${n}: ${pageRows.length} rows from ${describeUrl(res.url)}`);
      if (config.next_url_path) {
        const next = valueAtPath(json, config.next_url_path);
        if (typeof next !== "string" || next === "") break;
        url = new URL(next, res.url).href;
      } else if (paged) {
        if (pageRows.length === 0 || (config.page_size !== undefined && pageRows.length < config.page_size)) break;
        page += config.offset_param ? (config.page_size ?? pageRows.length) : 1;
      } else {
        break;
      }
      if (n === maxPages) ctx.log("warning", `stopped after max_pages (${maxPages}) pages`);
    }
    return { output: dataSetFromRows(rows) };
  },
});
