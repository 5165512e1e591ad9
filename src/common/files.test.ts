import { describe, expect, it } from 'vitest';
import { formatFileSize } from './files';

describe('formatFileSize', () => {
  it('shows Bytes, KB, MB or GB, 1024 per step, two decimals above Bytes', () => {
    expect(formatFileSize(0)).toBe('0 Bytes');
    expect(formatFileSize(1023)).toBe('1023 Bytes');
    expect(formatFileSize(1024)).toBe('1.00 KB');
    expect(formatFileSize(1536)).toBe('1.50 KB');
    expect(formatFileSize(10 * 1024 * 1024)).toBe('10.00 MB');
    expect(formatFileSize(3.25 * 1024 ** 3)).toBe('3.25 GB');
  });

  it('moves up a unit when rounding reaches 1024', () => {
    expect(formatFileSize(1024 * 1024 - 1)).toBe('1.00 MB');
  });

  it('stops at GB', () => {
    expect(formatFileSize(2048 * 1024 ** 3)).toBe('2048.00 GB');
  });
});
