import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import { type ByteRange, byteCounter, type FileStore, FileTooLargeError } from './store';

export interface S3Settings {
  bucket: string;
  /** Unset: AWS itself. */
  endpoint?: string;
  region: string;
  /** Both unset: the SDK's default credential chain (environment, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `true` for MinIO and most self-hosted servers (bucket in the path, not the host name). */
  forcePathStyle: boolean;
  /** Prepended to every key, e.g. `tasklane/`. */
  prefix: string;
}

/** Why the bucket cannot be used, naming the setting to fix: start-up stops with this one line. */
export class S3SettingsError extends Error {}

/** Parts of 5 MiB (the least S3 allows), two at a time: an upload holds about 10 MiB of parts, however large the file. */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

/**
 * The S3-compatible driver (AWS S3, MinIO, Garage, R2, B2). Uploads stream through the SDK's
 * multipart Upload with the size counted on the way; a failed or oversized upload is aborted, so no
 * object appears. Keys are generated, under the configured prefix.
 */
export async function createS3FileStore(settings: S3Settings): Promise<FileStore> {
  // Loaded here, so installations on local disk never load the SDK (decision 027).
  const [
    {
      AbortMultipartUploadCommand,
      DeleteObjectCommand,
      GetObjectCommand,
      HeadBucketCommand,
      ListMultipartUploadsCommand,
      ListObjectsV2Command,
      PutObjectCommand,
      S3Client,
      S3ServiceException,
    },
    { Upload },
  ] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
  const client = new S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.accessKeyId && settings.secretAccessKey
      ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
      : {}),
    // Checksums only where S3 requires them: many S3-compatible servers refuse the SDK's newer
    // default (aws-chunked bodies with trailing CRC32 checksums).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = settings.bucket;
  const objectKey = (key: string) => `${settings.prefix}${key}`;

  return {
    async put(source, { maxBytes = Number.POSITIVE_INFINITY } = {}) {
      const key = crypto.randomBytes(16).toString('hex');
      const counter = byteCounter(maxBytes);
      source.on('error', (error) => counter.stream.destroy(error));
      const upload = new Upload({
        client,
        params: { Bucket, Key: objectKey(key), Body: source.pipe(counter.stream) },
        partSize: PART_SIZE,
        queueSize: QUEUE_SIZE,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (error) {
        // Stop reading whatever is left of the request, and say what really went wrong: when the
        // server refuses the abort, the SDK reports the abort's failure instead.
        source.unpipe(counter.stream);
        counter.stream.destroy();
        if (counter.bytes() > maxBytes) throw new FileTooLargeError(maxBytes);
        throw error;
      }
      return { key, size: counter.bytes() };
    },

    async get(key, range?: ByteRange) {
      try {
        const object = await client.send(
          new GetObjectCommand({
            Bucket,
            Key: objectKey(key),
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        return object.Body as Readable;
      } catch (error) {
        if (error instanceof S3ServiceException && error.name === 'NoSuchKey') return null;
        throw error;
      }
    },

    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: objectKey(key) }));
    },

    async sweepIncomplete(olderThanMs = 0) {
      const cutoff = Date.now() - olderThanMs;
      let KeyMarker: string | undefined;
      let UploadIdMarker: string | undefined;
      do {
        let page: Awaited<ReturnType<typeof listUploads>>;
        try {
          page = await listUploads(KeyMarker, UploadIdMarker);
        } catch (error) {
          // Some S3-compatible servers do not list multipart uploads; their own expiry clears them.
          if (error instanceof S3ServiceException && error.name === 'NotImplemented') return;
          throw error;
        }
        for (const upload of page.Uploads ?? []) {
          if (!upload.Key || !upload.UploadId || (upload.Initiated?.getTime() ?? 0) > cutoff) continue;
          await client.send(
            new AbortMultipartUploadCommand({ Bucket, Key: upload.Key, UploadId: upload.UploadId }),
          );
        }
        KeyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
        UploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
      } while (KeyMarker);
    },

    async *list() {
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({
            Bucket,
            ...(settings.prefix ? { Prefix: settings.prefix } : {}),
            ...(ContinuationToken ? { ContinuationToken } : {}),
          }),
        );
        for (const object of page.Contents ?? []) {
          const key = object.Key?.slice(settings.prefix.length);
          // Only our generated keys: the prefix may be shared with other things in the bucket.
          if (key && /^[a-f0-9]{32}$/.test(key) && object.LastModified) {
            yield { key, modifiedAt: object.LastModified };
          }
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },

    /** The bucket answers, takes these credentials and accepts a write; else one line naming the setting. */
    async check() {
      const probe = objectKey(`.tasklane-probe-${crypto.randomBytes(8).toString('hex')}`);
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
        await client.send(new PutObjectCommand({ Bucket, Key: probe, Body: 'ok' }));
        await client.send(new DeleteObjectCommand({ Bucket, Key: probe }));
      } catch (error) {
        throw new S3SettingsError(explain(error, settings));
      }
    },
  };

  function listUploads(KeyMarker?: string, UploadIdMarker?: string) {
    return client.send(
      new ListMultipartUploadsCommand({
        Bucket,
        ...(settings.prefix ? { Prefix: settings.prefix } : {}),
        ...(KeyMarker ? { KeyMarker } : {}),
        ...(UploadIdMarker ? { UploadIdMarker } : {}),
      }),
    );
  }
}

function explain(error: unknown, settings: S3Settings): string {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const name = (error as { name?: string }).name ?? '';
  const where = settings.endpoint ?? 'AWS S3';
  if (status === 404 || name === 'NoSuchBucket' || name === 'NotFound') {
    return `Invalid configuration: S3_BUCKET=${JSON.stringify(settings.bucket)} does not exist at ${where}`;
  }
  if (status === 401 || status === 403) {
    return `Invalid configuration: S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY were refused by ${where} for bucket ${JSON.stringify(settings.bucket)} (${name || `HTTP ${status}`})`;
  }
  if (status === undefined) {
    const reason = (error as { code?: string }).code ?? (error as Error).message;
    return `Invalid configuration: S3_ENDPOINT=${JSON.stringify(settings.endpoint ?? '')} cannot be reached (${reason})`;
  }
  return `Object storage at ${where} refused the start-up check: ${name || `HTTP ${status}`}`;
}
