/** The routes of the OpenAPI tag "Attachments" (route-types.ts TAGS says what it holds). */

import { attachmentFields } from '../../domain/attachment';
import { GRANTS as G } from '../table-access';
import type { Route } from '../route-types';
import { json, noContent } from './common';

export const attachmentsRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/tickets/{id}/attachments/{attachmentId}',
    handler: 'attachments/download',
    permission: 'staff',
    table: [...G.readTickets],
    files: ['read'],
    negotiatesJson: false,
    doc: {
      tag: 'Attachments',
      summary: "Download an attachment's file",
      description:
        'Answers 302: `Location` is a short-lived link to the file itself (on AWS, an S3 presigned URL; it needs ' +
        'no credentials). A fetch-based client follows the redirect by default and receives the file, of its own ' +
        "type, not JSON: read it as bytes (openapi-fetch: `parseAs: 'blob'` or `'arrayBuffer'`), or send the " +
        "request with `redirect: 'manual'` to get the link.",
      success: {
        status: 302,
        description: 'A redirect to a short-lived download link (no body).',
        headers: { Location: { type: 'string', format: 'uri' } },
      },
    },
  },
  {
    method: 'GET',
    path: '/api/followups-attachments',
    handler: 'attachments/list',
    permission: 'staff',
    table: [...G.listRefs, ...G.readTickets, ...G.visibleTickets],
    files: [],
    doc: {
      tag: 'Attachments',
      summary: 'List followup attachments',
      success: json('AttachmentPage', 200, 'A page of attachments, by file name.'),
      paginated: true,
    },
  },
  {
    method: 'POST',
    path: '/api/followups-attachments',
    handler: 'attachments/create',
    permission: 'staff',
    table: [...G.newIds, ...G.writeTickets, ...G.writeRefs, ...G.fileCleanups, ...G.outbox],
    files: ['write', 'delete'],
    doc: {
      tag: 'Attachments',
      summary: 'Attach a file to a followup',
      description:
        "`filename`, `mime_type` and `size` default to the upload's name, the type guessed from it and its byte count.",
      success: json('Attachment', 201, 'The attachment record.'),
      body: {
        fields: attachmentFields,
        mode: 'create',
        files: [{ name: 'file', required: true, description: 'The file.' }],
        multipartOnly: true,
      },
    },
  },
  {
    method: 'GET',
    path: '/api/followups-attachments/{id}',
    handler: 'attachments/get',
    permission: 'staff',
    table: [...G.readRefs, ...G.readTickets],
    files: [],
    doc: {
      tag: 'Attachments',
      summary: 'Get an attachment record',
      success: json('Attachment', 200, 'The attachment record.'),
    },
  },
  {
    method: 'DELETE',
    path: '/api/followups-attachments/{id}',
    handler: 'attachments/delete',
    permission: 'staff',
    table: [...G.writeTickets, ...G.writeRefs, ...G.fileCleanups, ...G.recordDeletions],
    files: ['delete'],
    doc: { tag: 'Attachments', summary: 'Delete an attachment and its file', success: noContent },
  },
];
