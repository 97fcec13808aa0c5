import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { PARAM_AJV_OPTIONS } from '../check/check-params.js';
import { defaultComponentRoot, findComponentFolders, loadRegistry } from './load-registry.js';
import { COMPONENT_SCHEMA_FORMAT, componentSchemaProblems } from './schema-format.js';
import fs from 'node:fs';
import path from 'node:path';

// The checker compiles connector parameter schemas without checking them against the JSON Schema
// meta-schema (start-up time); this is where they are checked.
const registry = await loadRegistry();
const schemas = [...registry.connectors.values(), ...registry.triggers.values()];

describe('connector and trigger parameter schemas', () => {
  it('are all found', () => {
    expect(registry.connectors.size).toBeGreaterThan(5);
    expect(registry.triggers.size).toBeGreaterThan(1);
  });

  it('have lower-case kebab-case names (so the registry’s code-unit order is also alphabetical)', () => {
    for (const schema of schemas) expect(schema.name).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
  });

  it.each(schemas.filter((s) => s.synchronous).map((s) => [s.name, s] as const))(
    '%s, declared synchronous, has a run that is no async function (its pipelines compile to synchronous code)',
    async (_name, schema) => {
      const file = new URL(`../../runtime/${schema.module ?? ''}.ts`, import.meta.url).href;
      const implementation = (await import(/* @vite-ignore */ file)) as { run: (...args: unknown[]) => unknown };
      expect(typeof implementation.run).toBe('function');
      expect(implementation.run.constructor.name).not.toBe('AsyncFunction');
    },
  );

  it.each(findComponentFolders([defaultComponentRoot()]).map((f) => [`${f.group}/${f.name}`, f.folder] as const))(
    '%s/schema.json follows the format of component schemas (schema-format.ts)',
    (_label, folder) => {
      const raw = JSON.parse(fs.readFileSync(path.join(folder, 'schema.json'), 'utf8')) as Record<string, unknown>;
      const ajv = new Ajv({ ...PARAM_AJV_OPTIONS, allErrors: true });
      expect(ajv.validate(COMPONENT_SCHEMA_FORMAT, raw), ajv.errorsText(ajv.errors)).toBe(true);
    },
  );

  it('reports the x-pipe facts that name parameters a schema does not declare', () => {
    const schema = {
      name: 'x',
      kind: 'connector' as const,
      summary: 'a broken schema',
      params: { type: 'object', properties: { a: { 'x-pipe-split': { separator: '.', into: ['a', 'b'] } } } },
      'x-pipe-span': { kind: 'client' as const, attributes: { 'x.y': 'nope' } },
    };
    expect(componentSchemaProblems(schema)).toEqual([
      'params.a.x-pipe-split names the parameter `b`, which params does not declare',
      'x-pipe-span.attributes names the parameter `nope`, which params does not declare',
    ]);
  });

  it('reports account types without an account reference, and a refusal of braces that says nothing', () => {
    const schema = {
      name: 'x',
      kind: 'connector' as const,
      summary: 'a broken schema',
      params: {
        type: 'object',
        properties: {
          a: { 'x-pipe-account-types': ['connection'] },
          b: { 'x-pipe-braces': true, 'x-pipe-refuses-braces': 'write $1' },
          c: { 'x-pipe-refuses-braces': '' },
        },
      },
    };
    expect(componentSchemaProblems(schema)).toEqual([
      'params.a: x-pipe-account-types is a list of account types, on a parameter with x-pipe-ref: account',
      'params.b: x-pipe-refuses-braces is the text saying how to pass a value instead, on a parameter without x-pipe-braces',
      'params.c: x-pipe-refuses-braces is the text saying how to pass a value instead, on a parameter without x-pipe-braces',
    ]);
  });

  it('reports an x-pipe-secret mark that is neither sink nor credential', () => {
    const schema = {
      name: 'x',
      kind: 'connector' as const,
      summary: 'a broken schema',
      params: {
        type: 'object',
        properties: {
          a: { 'x-pipe-secret': 'sink' },
          b: { 'x-pipe-secret': 'credential' },
          c: { 'x-pipe-secret': true },
        },
      },
    };
    expect(componentSchemaProblems(schema)).toEqual([
      'params.c: x-pipe-secret is sink (a way out of the service) or credential',
    ]);
  });

  it('reports rules between parameters naming parameters a schema does not declare', () => {
    const schema = {
      name: 'x',
      kind: 'connector' as const,
      summary: 'a broken schema',
      params: {
        type: 'object',
        properties: {
          operation: { enum: ['read'] },
          file: {},
          auth: { type: 'object', properties: { type: {} }, dependentRequired: { type: ['acount'] } },
        },
        allOf: [
          {
            if: { required: ['op'], properties: { op: { const: 'read' } } },
            then: { properties: { path: false }, oneOf: [{ required: ['file'] }, { required: ['text'] }] },
          },
        ],
      },
    };
    expect(componentSchemaProblems(schema)).toEqual([
      'params.allOf[0].if names the parameter `op`, which params does not declare',
      'params.allOf[0].if names the parameter `op`, which params does not declare',
      'params.allOf[0].then names the parameter `path`, which params does not declare',
      'params.allOf[0].then.oneOf[1] names the parameter `text`, which params does not declare',
      'params.auth.dependentRequired names the parameter `acount`, which params.auth does not declare',
    ]);
  });

  it.each(schemas.map((s) => [`${s.kind} ${s.name}`, s] as const))('%s is a valid JSON Schema', (_label, schema) => {
    const ajv = new Ajv({ ...PARAM_AJV_OPTIONS, validateSchema: true });
    expect(ajv.validateSchema(schema.params as object), ajv.errorsText(ajv.errors)).toBe(true);
    expect(() => ajv.compile(schema.params as object)).not.toThrow();
  });
});
