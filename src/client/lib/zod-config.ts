import { z } from 'zod';

/**
 * Imported first by main.tsx, before any module builds a schema. Zod probes whether it may compile
 * parsers with `new Function('')` as an object schema is built; our CSP allows no eval, so the probe
 * raised a Content-Security-Policy violation on every page load (issue 20). Jitless, Zod never tries.
 */
z.config({ jitless: true });
