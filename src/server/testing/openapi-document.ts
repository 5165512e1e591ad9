import { expect } from 'vitest';
import { OPENAPI_PATH } from '../http/openapi';
import type { TestApp } from './app';

/** The parts of the served OpenAPI document the tests read. */

export type Json = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: Json;
}

export interface Response {
  description?: string;
  content?: Record<string, { schema: Json }>;
  $ref?: string;
}

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Json }> };
  responses: Record<string, Response>;
}

export interface Document {
  openapi: string;
  info: { title: string; version: string; license?: Json };
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Json>;
    securitySchemes: Record<string, Json>;
    responses: Record<string, Response>;
  };
}

export async function fetchDocument(t: TestApp): Promise<Document> {
  const response = await t.app.inject({ method: 'GET', url: OPENAPI_PATH });
  expect(response.statusCode).toBe(200);
  return response.json() as Document;
}

/** A documented schema with its `#/components/schemas/...` references filled in, for a JSON Schema validator. */
export function resolved(document: Document, schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((s) => resolved(document, s));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (ref?.startsWith('#/components/schemas/')) {
    return resolved(document, document.components.schemas[ref.slice('#/components/schemas/'.length)]);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, resolved(document, v)]));
}

/** The documented answer for a status: its own entry, else its range (4XX: the shared error answer). */
export function documentedResponse(operation: Operation, status: number, document: Document) {
  const response = operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`];
  if (!response?.$ref) return response;
  return document.components.responses[response.$ref.split('/').pop() ?? ''];
}
