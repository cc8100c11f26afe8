import { HeadBucketCommand, ListBucketsCommand, S3Client } from "@aws-sdk/client-s3";
import { systemDnsResolver, type DnsResolver } from "../../engine/http/address-guard.js";
import { guardedAgents } from "../../engine/http/guarded-socket.js";
import { SluiceError } from "../../errors.js";
import type { Connector, ConnectionFields } from "../connector.js";

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

/**
 * An S3 client from `extra`: bucket, region, endpoint (S3-compatible stores), access_key_id, secret_access_key.
 * Every request goes through the address guard. Keys are required: without them the SDK would fall back to the
 * server's own credentials (environment, instance metadata), which a user's connection must never borrow.
 */
export function s3Client(c: ConnectionFields, resolver: DnsResolver = systemDnsResolver): S3Client {
  const accessKeyId = str(c.extra.access_key_id) ?? str(c.login);
  const secretAccessKey = str(c.extra.secret_access_key) ?? str(c.password);
  if (!accessKeyId || !secretAccessKey) {
    throw new SluiceError("invalid", `s3 connection '${c.conn_id}' needs access_key_id and secret_access_key in extra`);
  }
  return new S3Client({
    // options of the SDK's Node request handler: its agents are the guarded ones
    requestHandler: guardedAgents(resolver),
    region: str(c.extra.region) ?? "us-east-1",
    endpoint: str(c.extra.endpoint),
    forcePathStyle: c.extra.force_path_style !== false && Boolean(str(c.extra.endpoint)),
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
  });
}

export const s3Connector: Connector = {
  type: "s3",
  label: "Amazon S3",
  fields: ["extra"],
  driver: "@aws-sdk/client-s3",
  uri: (c) => `s3://${str(c.extra.bucket) ?? ""}`,
  async test(c, signal, network) {
    const client = s3Client(c, network.resolver);
    try {
      const bucket = str(c.extra.bucket);
      if (bucket) {
        await client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: signal });
        return `bucket ${bucket} is reachable`;
      }
      await client.send(new ListBucketsCommand({}), { abortSignal: signal });
      return "listed buckets";
    } finally {
      client.destroy();
    }
  },
};
