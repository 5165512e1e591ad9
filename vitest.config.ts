import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'bench/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['src/server/testing/setup.ts'],
          // Three files at a time on two cores: the API tests wait on PostgreSQL, on password hashing
          // in libuv's pool and on sockets. Vitest's default (cores - 1) ran them one at a time:
          // 554 s against 212 s for the whole unit project on a busy machine.
          maxWorkers: 3,
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.ts'],
          environment: 'node',
          // Three files at a time, each with its own server (own port and data) and browser: a browser
          // test mostly waits (for the page, the server, the animations), so two cores keep three
          // busy (four heavy files took 267 s four at a time against 564 s two at a time; at four,
          // server starts in the full suite waited over 15 s for a core).
          maxWorkers: 3,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
