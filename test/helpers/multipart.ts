/** Multipart request bodies built by hand: zulip-js replaces the global FormData with its own. */

export interface Part {
  name?: string;
  fileName: string;
  data: Buffer | string;
  type?: string;
}

export function multipart(parts: Part[], fields: Record<string, string> = {}): { body: Uint8Array<ArrayBuffer>; type: string } {
  const boundary = "----confab" + Math.random().toString(16).slice(2);
  const chunks: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  parts.forEach((p, i) => {
    const type = p.type ? `Content-Type: ${p.type}\r\n` : "";
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name ?? `file-${i}`}"; filename="${p.fileName}"\r\n${type}\r\n`;
    chunks.push(Buffer.from(head), Buffer.from(p.data), Buffer.from("\r\n"));
  });
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: new Uint8Array(Buffer.concat(chunks)), type: `multipart/form-data; boundary=${boundary}` };
}
