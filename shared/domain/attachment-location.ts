/** What a ref item keeps of an attachment: where it lives and what the staff-wide list orders by. */
export interface AttachmentLocation {
  id: number;
  ticket: number;
  followup: number;
  filename: string;
}

export function attachmentLocation(a: AttachmentLocation): AttachmentLocation {
  return { id: a.id, ticket: a.ticket, followup: a.followup, filename: a.filename };
}

/** The staff-wide attachment list's order: by file name, then id (upstream's `ordering = ['filename']`). */
export function byFilename(a: AttachmentLocation, b: AttachmentLocation): number {
  return a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : a.id - b.id;
}
