// Parser of multipart/related bodies, the format of GCS "multipart" uploads: a JSON metadata
// part followed by the object's bytes.

/** MultipartPart is one part: its headers (lower-case names) and body. */
export interface MultipartPart {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** boundaryOf extracts the boundary from a multipart Content-Type, or undefined. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2])?.trim() : undefined;
}

/** parseMultipart splits `body` into parts; it throws an Error for a malformed body. */
export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const data = Buffer.concat([Buffer.from('\r\n'), body]);
  const delim = Buffer.from(`\r\n--${boundary}`);
  const parts: MultipartPart[] = [];
  let pos = data.indexOf(delim);
  if (pos < 0) throw new Error('multipart body has no boundary');
  for (;;) {
    const start = pos + delim.length;
    if (data.subarray(start, start + 2).toString() === '--') return parts; // closing delimiter
    const next = data.indexOf(delim, start);
    if (next < 0) throw new Error('multipart body is not terminated');
    parts.push(parsePart(data.subarray(start, next)));
    pos = next;
  }
}

function parsePart(raw: Buffer): MultipartPart {
  const sep = raw.indexOf('\r\n\r\n');
  if (sep < 0) throw new Error('multipart part has no header separator');
  const headers: Record<string, string> = {};
  for (const line of raw.subarray(0, sep).toString('latin1').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: raw.subarray(sep + 4) };
}
