import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/** s3rver's built-in account. */
const ACCESS_KEY = 'S3RVER';

export interface TestS3 {
  /** The environment that points the app at this server's bucket. */
  env: Record<string, string>;
  endpoint: string;
  bucket: string;
  /** Every object key in the bucket, prefix included. */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * An S3-compatible server in this process (s3rver, files in a temporary folder) with one fresh
 * bucket, for tests of the S3 file store. Credentials are s3rver's own; it checks signatures.
 */
export async function startTestS3(options: { prefix?: string } = {}): Promise<TestS3> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'tasklane-s3-'));
  const bucket = `test-${crypto.randomBytes(4).toString('hex')}`;
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: ACCESS_KEY },
  });
  return {
    endpoint,
    bucket,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: ACCESS_KEY,
      S3_FORCE_PATH_STYLE: 'true',
      ...(options.prefix ? { S3_PREFIX: options.prefix } : {}),
    },
    async keys() {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (listed.Contents ?? []).map((object) => object.Key!).sort();
    },
    async close() {
      client.destroy();
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}
