import { describe, expect, it } from 'vitest';
import { counted, plural } from './plural';
import { COPY, TOASTS } from './spec';

describe('counts in words', () => {
  it('picks the singular for one and the plural otherwise', () => {
    expect(plural(1, 'File', 'Files')).toBe('File');
    expect(plural(0, 'File', 'Files')).toBe('Files');
    expect(plural(2, 'File', 'Files')).toBe('Files');
    expect(counted(1, 'task', 'tasks')).toBe('1 task');
    expect(counted(12, 'task', 'tasks')).toBe('12 tasks');
  });

  it('writes the spec’s file counts as people do', () => {
    expect(COPY.fileCount(1)).toBe('1 File');
    expect(COPY.fileCount(2)).toBe('2 Files');
    expect(TOASTS.uploadingCount(1)).toBe('Uploading 1 file...');
    expect(TOASTS.uploadingCount(3)).toBe('Uploading 3 files...');
  });
});
