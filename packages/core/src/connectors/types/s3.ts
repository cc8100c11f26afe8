import { HeadBucketCommand, ListBucketsCommand, S3Client } from "@aws-sdk/client-s3";
import type { Connector, ConnectionFields } from "../connector.js";

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

/** An S3 client from `extra`: bucket, region, endpoint (S3-compatible stores), access_key_id, secret_access_key. */
export function s3Client(c: ConnectionFields): S3Client {
  const accessKeyId = str(c.extra.access_key_id) ?? str(c.login);
  const secretAccessKey = str(c.extra.secret_access_key) ?? str(c.password);
  return new S3Client({
    region: str(c.extra.region) ?? "us-east-1",
    endpoint: str(c.extra.endpoint),
    forcePathStyle: c.extra.force_path_style !== false && Boolean(str(c.extra.endpoint)),
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    maxAttempts: 1,
  });
}

export const s3Connector: Connector = {
  type: "s3",
  label: "Amazon S3",
  fields: ["extra"],
  driver: "@aws-sdk/client-s3",
  uri: (c) => `s3://${str(c.extra.bucket) ?? ""}`,
  async test(c, signal) {
    const client = s3Client(c);
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
