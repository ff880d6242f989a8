/** Attachment files in the private bucket. Downloads go through short-lived presigned GETs. */
import { DeleteObjectsCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '../config';

export const s3 = new S3Client({
  forcePathStyle: config.s3ForcePathStyle,
  // Checksums only where S3 requires them: the default aws-chunked framing corrupts objects on
  // S3-compatible engines, and it buys nothing for small single-part uploads.
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});

/** How long a download link stays valid. */
export const DOWNLOAD_LINK_SECONDS = 300;

export async function putFile(key: string, data: Buffer, contentType: string): Promise<void> {
  await s3.send(
    new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: data, ContentLength: data.length, ContentType: contentType }),
  );
}

/** Deletes objects, 1000 per request; failures are reported, never thrown (the records are gone). */
export async function deleteFiles(keys: string[]): Promise<string[]> {
  const failed: string[] = [];
  for (let i = 0; i < keys.length; i += 1000) {
    const batch = keys.slice(i, i + 1000);
    try {
      const out = await s3.send(
        new DeleteObjectsCommand({ Bucket: config.bucketName, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
      );
      failed.push(...(out.Errors ?? []).map((e) => e.Key ?? '?'));
    } catch {
      failed.push(...batch);
    }
  }
  if (failed.length) console.error(JSON.stringify({ level: 'ERROR', message: 'attachment files not deleted', keys: failed }));
  return failed;
}

/** RFC 6266 `attachment` disposition with an ASCII fallback and the UTF-8 name. */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function presignDownload(key: string, filename: string, mimeType: string): Promise<string> {
  return getSignedUrl(
    s3,
    new GetObjectCommand({
      Bucket: config.bucketName,
      Key: key,
      ResponseContentDisposition: attachmentDisposition(filename),
      ResponseContentType: mimeType,
    }),
    { expiresIn: DOWNLOAD_LINK_SECONDS },
  );
}

export interface PendingFile {
  key: string;
  data: Buffer;
  contentType: string;
}

/**
 * Uploads files, then runs the write that records them. If the write fails the files are deleted
 * again, so no object is left without its record and no record points at a missing object.
 */
export async function withFiles<T>(files: PendingFile[], commit: () => Promise<T>): Promise<T> {
  if (!files.length) return commit();
  try {
    await Promise.all(files.map((f) => putFile(f.key, f.data, f.contentType)));
    return await commit();
  } catch (error) {
    await deleteFiles(files.map((f) => f.key));
    throw error;
  }
}
