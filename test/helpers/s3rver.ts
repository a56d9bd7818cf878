/**
 * A local server speaking S3's protocol (s3rver), on a free port over a temporary directory, with
 * one empty bucket: what Confab's S3 storage is tested against.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import { DeleteObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import type { S3Config } from "../../src/config.js";

export interface TestS3 {
  /** Confab's settings for the bucket. */
  config: S3Config;
  /** Every key in the bucket, sorted. */
  keys(): Promise<string[]>;
  /** Removes an object behind Confab's back. */
  remove(key: string): Promise<void>;
  close(): Promise<void>;
}

// The SDK warns once per process that its releases from 2027 on need Node 22; that says nothing
// about what is tested here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";

// s3rver checks signatures against these fixed credentials.
const CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

export async function startTestS3(opts: { keyPrefix?: string } = {}): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "confab-s3-"));
  const bucket = "confab-test";
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const config: S3Config = {
    bucket,
    endpoint: `http://127.0.0.1:${port}`,
    region: "us-east-1",
    credentials: CREDENTIALS,
    forcePathStyle: true,
    keyPrefix: opts.keyPrefix,
  };
  const client = new S3Client({ region: config.region, endpoint: config.endpoint, forcePathStyle: true, credentials: CREDENTIALS });
  return {
    config,
    async keys() {
      const out = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (out.Contents ?? []).map((o) => o.Key!).sort();
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async close() {
      client.destroy();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
