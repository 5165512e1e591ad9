import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from './config';

/**
 * Issue 11: deploy/compose.yaml and the Dockerfile cannot be run on a machine without a container
 * engine, so what can be checked is checked here: every variable they set is one the server reads,
 * with a valid value, and one the README's configuration table documents.
 */
const read = (file: string) => fs.readFileSync(file, 'utf8');

interface ComposeService {
  build?: unknown;
  environment?: Record<string, string>;
}

const compose = parse(read('deploy/compose.yaml')) as { services: Record<string, ComposeService> };
const appServices = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);

/** Names set by `ENV A=1 \ B=2` instructions of the Dockerfile. */
function dockerfileVariables(text: string): string[] {
  const joined = text.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .filter((line) => /^ENV\s/.test(line))
    .flatMap((line) => [...line.matchAll(/([A-Z][A-Z0-9_]*)=/g)].map((match) => match[1]!));
}

/** Names in the first column of the README's configuration table. */
function readmeVariables(text: string): string[] {
  const section = text.split(/^## /m).find((part) => part.startsWith('Configuration'));
  if (!section) throw new Error('README.md has no "## Configuration" section');
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!));
}

describe('deployment files', () => {
  const documented = readmeVariables(read('README.md'));

  it('runs two app instances behind Caddy, on PostgreSQL and MinIO', () => {
    expect(appServices.map(([name]) => name).sort()).toEqual(['app1', 'app2']);
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['postgres', 'minio', 'caddy']));
    const caddyfile = read('deploy/Caddyfile');
    for (const [name] of appServices) expect(caddyfile).toContain(`${name}:3000`);
  });

  it('sets only variables the server reads, with values it accepts, all documented', () => {
    for (const [, service] of appServices) {
      const environment = service.environment ?? {};
      for (const name of Object.keys(environment)) {
        expect(CONFIG_VARIABLES, `${name} in deploy/compose.yaml`).toContain(name);
        expect(documented, `${name} in the README's configuration table`).toContain(name);
      }
      const config = loadConfig(environment);
      expect(config.databaseUrl).toMatch(/^postgres:\/\//);
      expect(config.s3?.bucket).toBe('tasklane');
    }
    // Every instance must share AI_SECRET, or users' AI keys would not decrypt on the others.
    expect(new Set(appServices.map(([, service]) => service.environment?.AI_SECRET)).size).toBe(1);
    for (const name of dockerfileVariables(read('Dockerfile'))) {
      expect(CONFIG_VARIABLES, `${name} in the Dockerfile`).toContain(name);
      expect(documented, `${name} in the README's configuration table`).toContain(name);
    }
  });

  it('offers commented-out examples only of variables the server reads, with values it accepts', () => {
    // `  # NAME: value` lines inside the shared environment block: settings to uncomment (single sign-on).
    const examples = Object.fromEntries(
      [...read('deploy/compose.yaml').matchAll(/^ {2}# ([A-Z][A-Z0-9_]*): (.+)$/gm)].map((match) => [
        match[1]!,
        match[2]!.replace(/^"(.*)"$/, '$1'),
      ]),
    );
    expect(Object.keys(examples)).toEqual(expect.arrayContaining(['OIDC_ISSUER', 'OIDC_CLIENT_ID']));
    for (const name of Object.keys(examples)) {
      expect(CONFIG_VARIABLES, `${name} in deploy/compose.yaml`).toContain(name);
      expect(documented, `${name} in the README's configuration table`).toContain(name);
    }
    const [, service] = appServices[0]!;
    expect(loadConfig({ ...service.environment, ...examples }).oidc?.issuer).toBe(examples.OIDC_ISSUER);
  });

  it('documents every variable the server reads, and none it does not', () => {
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});
