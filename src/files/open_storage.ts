import path from "node:path";
import type { Config } from "../config.js";
import { LocalFileStorage, type FileStorage } from "./storage.js";

/**
 * The configured S3 bucket if there is one, else the data directory's `uploads/`. The AWS SDK is
 * loaded only for S3: it adds about 24 MB to a server's memory at rest.
 */
export async function openFileStorage(config: Config): Promise<{ files: FileStorage; close(): void }> {
  if (config.s3) {
    const { S3FileStorage } = await import("./s3_storage.js");
    const s3 = new S3FileStorage(config.s3);
    return { files: s3, close: () => s3.close() };
  }
  return { files: new LocalFileStorage(path.join(config.dataDir, "uploads")), close: () => {} };
}
