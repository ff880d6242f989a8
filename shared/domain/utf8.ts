/** Sizes and cuts of text in bytes of UTF-8, as DynamoDB counts an item and mail counts a body. */

export const utf8Bytes = (text: string | null | undefined): number => (text ? Buffer.byteLength(text, 'utf8') : 0);

/** The longest head of `text` within `maxBytes` of UTF-8, cut between characters (`text` itself if it fits). */
export function utf8Head(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--; // not inside a character
  return bytes.subarray(0, end).toString('utf8');
}
