/**
 * Compile-time checks of the index operations: `store NAME.list-indexes` / `drop-index` are known
 * operations, list-indexes rows have the closed shape `{ name, key, unique }`, drop-index answers
 * `updateCount`, and a misspelt operation is PIPE2012 with a suggestion.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileForTest } from '../../../test/harness/compile-case.js';

const dir = mkdtempSync(join(tmpdir(), 'pipec-store-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function check(steps: string): Array<{ code: string; message: string }> {
  const file = join(dir, `case-${Math.random().toString(36).slice(2)}.pipe`);
  writeFileSync(
    file,
    `store users\n\npipeline admin {\n  trigger http { method: POST, path: "/admin" }\n${steps}\n}\n`,
  );
  return compileForTest([file], { base: dir }).diagnostics.map((d) => ({ code: d.code, message: d.message }));
}

describe('store index operations at compile time', () => {
  it('accepts list-indexes and drop-index (by name or fields) and types their outputs', () => {
    expect(
      check(`  store users.list-indexes {}
  log { message: "{{ message.data[0].name }} {{ message.data[0].unique }} {{ message.rowCount }}" }
  store users.drop-index { name: "pipec_uix_0123456789abcdef" }
  store users.drop-index { fields: { email: 1 } }
  log { message: "dropped {{ message.updateCount }}" }
  store users.aggregate { pipeline: [{ $merge: { into: "users", on: "email" } }] }`),
    ).toEqual([]);
  });

  it('closes the list-indexes row shape', () => {
    expect(check(`  store users.list-indexes {}\n  log { message: "{{ message.data[0].nmae }}" }`)).toEqual([
      { code: 'PIPE4006', message: 'no field `nmae` on `message.data[0]`' },
    ]);
  });

  it('rejects a misspelt operation and parameters of the wrong type', () => {
    const misspelt = check('  store users.list-indexs {}');
    expect(misspelt.map((d) => d.code)).toContain('PIPE2012');
    expect(misspelt.find((d) => d.code === 'PIPE2012')?.message).toBe('unknown store operation `list-indexs`');
    expect(check('  store users.drop-index { name: 5 }').map((d) => d.code)).toEqual(['PIPE3003']);
  });
});
