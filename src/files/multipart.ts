/**
 * File parts of multipart requests. Fastify's multipart plugin turns the other fields into
 * ordinary parameters; file parts are collected here for the endpoints that take a file. Each is
 * cut off one byte past the largest size any endpoint accepts, so a too-large file is detected
 * without holding all of it, and only the first file's content is kept.
 */
import type { FastifyRequest } from "fastify";
import type { MultipartFile } from "@fastify/multipart";

export interface UploadedFile {
  fieldName: string;
  fileName: string;
  /** As the client declared it. */
  mimeType: string;
  data: Buffer;
  /** Longer than the server's limit; `data` holds only the start. */
  truncated: boolean;
}

declare module "fastify" {
  interface FastifyRequest {
    uploadedFiles?: UploadedFile[];
  }
}

export async function collectFilePart(this: FastifyRequest, part: MultipartFile): Promise<void> {
  const files = (this.uploadedFiles ??= []);
  const chunks: Buffer[] = [];
  // Every endpoint takes one file at most: later ones are only counted, never held.
  const keep = files.length === 0;
  for await (const chunk of part.file) if (keep) chunks.push(chunk as Buffer);
  files.push({
    fieldName: part.fieldname,
    fileName: part.filename,
    mimeType: part.mimetype,
    data: Buffer.concat(chunks),
    truncated: part.file.truncated,
  });
}

export const filesOf = (request: FastifyRequest): UploadedFile[] => request.uploadedFiles ?? [];
