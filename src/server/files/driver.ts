import path from 'node:path';
import type { Config } from '../config';
import { createS3FileStore } from './s3-store';
import { createDiskFileStore, type FileStore, instanceId } from './store';

/** The one place the file store's driver is chosen: the bucket when S3_BUCKET is set, else DATA_DIR/files. */
export async function createFileStore(config: Pick<Config, 's3' | 'dataDir'>): Promise<FileStore> {
  return config.s3
    ? await createS3FileStore(config.s3)
    : createDiskFileStore(path.join(config.dataDir, 'files'), instanceId(config.dataDir));
}
