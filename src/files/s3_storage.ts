/**
 * Uploads in an S3 bucket (AWS or any server speaking its protocol: MinIO, Ceph, …), so that
 * Confab processes on different machines serve the same files.
 */
import { Readable } from "node:stream";
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import type { S3Config } from "../config.js";
import { checkKey, type ByteRange, type FileStorage, type StoredFile } from "./storage.js";

export class S3FileStorage implements FileStorage {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(config: S3Config) {
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.credentials,
      // The SDK's default adds checksums (streamed as trailers) that many S3-compatible servers
      // do not understand; S3 itself needs them only for a few operations we do not use.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
    this.bucket = config.bucket;
    this.prefix = config.keyPrefix ? `${config.keyPrefix.replace(/\/+$/, "")}/` : "";
  }

  private keyOf(key: string): string {
    checkKey(key);
    return this.prefix + key;
  }

  async put(key: string, data: Buffer | Readable): Promise<void> {
    // A single PUT must state its length, which a stream does not know; stored files are bounded
    // by the upload size limit, so holding one in memory is acceptable.
    const body = Buffer.isBuffer(data) ? data : Buffer.concat(await data.toArray());
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key), Body: body }));
  }

  async get(key: string, range?: ByteRange): Promise<StoredFile | null> {
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      if (!(out.Body instanceof Readable)) throw new Error(`S3 GetObject gave no stream for ${key}`);
      // A ranged answer's Content-Length is the part's; the whole size ends its Content-Range.
      const total = out.ContentRange ? Number(/\/(\d+)$/.exec(out.ContentRange)?.[1]) : out.ContentLength;
      if (total === undefined || !Number.isFinite(total)) throw new Error(`S3 GetObject gave no size for ${key}`);
      return { stream: out.Body, size: total };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers a delete of a missing key with success already.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) }));
  }

  /** Closes the client's pooled connections. */
  close(): void {
    this.client.destroy();
  }
}

/**
 * Some S3-compatible servers answer a missing key with a bare 404; a missing bucket is a
 * misconfiguration, which should not pass for a missing file.
 */
function isMissing(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return err.name === "NoSuchKey" || (err.$metadata.httpStatusCode === 404 && err.name !== "NoSuchBucket");
}
