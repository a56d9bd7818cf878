/**
 * File parts of multipart requests. Fastify's multipart plugin turns the other fields into
 * ordinary parameters; file parts are collected here for the endpoints that take files, each cut
 * off one byte past the largest size any of them accepts, so a too-large file is detected without
 * holding all of it.
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
  const chunks: Buffer[] = [];
  for await (const chunk of part.file) chunks.push(chunk as Buffer);
  (this.uploadedFiles ??= []).push({
    fieldName: part.fieldname,
    fileName: part.filename,
    mimeType: part.mimetype,
    data: Buffer.concat(chunks),
    truncated: part.file.truncated,
  });
}

export const filesOf = (request: FastifyRequest): UploadedFile[] => request.uploadedFiles ?? [];
