import path from "node:path";
import type { Config } from "../config.js";
import { LocalFileStorage, type FileStorage } from "./storage.js";
import { S3FileStorage } from "./s3_storage.js";

/** The configured S3 bucket if there is one, else the data directory's `uploads/`. */
export function openFileStorage(config: Config): { files: FileStorage; close(): void } {
  if (config.s3) {
    const s3 = new S3FileStorage(config.s3);
    return { files: s3, close: () => s3.close() };
  }
  return { files: new LocalFileStorage(path.join(config.dataDir, "uploads")), close: () => {} };
}
