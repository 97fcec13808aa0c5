/**
 * Compile-time part of `csv` and `xml`: the output shapes follow the operation and the declared
 * schema (fields read after the step are checked), and the rules between parameters of the
 * schemas (`if`/`then` per operation, compiler/check/param-rules.ts) refuse what an operation does not take.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileForTest } from '../../../test/harness/compile-case.js';

const dir = mkdtempSync(join(tmpdir(), 'pipec-csv-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROW =
  'schema Row { type: "object", additionalProperties: false, required: ["id"], properties: { id: { type: "integer" }, name: { type: "string" } } }';

function check(steps: string): Array<{ code: string; message: string }> {
  const file = join(dir, `case-${Math.random().toString(36).slice(2)}.pipe`);
  writeFileSync(
    file,
    `${ROW}\n\npipeline p {\n  trigger http { method: POST, path: "/p" }\n${steps}\n}\n\npipeline load {\n  trigger event { name: "rows", external: true }\n  log { message: "x" }\n}\n`,
  );
  return compileForTest([file], { base: dir }).diagnostics.map((d) => ({ code: d.code, message: d.message }));
}

describe('csv at compile time', () => {
  it('types parse by the row schema and generate by its output', () => {
    expect(
      check(`  csv parse a { text: "id\\n1", schema: Row, on-invalid: reject }
  log { message: "{{ step.a.rows[0].id + 1 }} {{ step.a.rejected[0].line }} {{ step.a.rejected[0].reason }} {{ step.a.rejectedCount }}" }
  csv generate b { rows: {{ step.a.rows }} }
  log { message: "{{ step.b.text }} {{ step.b.rowCount }}" }
  csv generate c { rows: [[1, 2]], to-file: "out.csv" }
  csv parse d { file: {{ step.c.file }}, batch-pipeline: load }
  log { message: "{{ step.c.file.path }} {{ step.d.batches }}" }`),
    ).toEqual([]);
    expect(check('  csv parse { text: "id", schema: Row }\n  log { message: "{{ message.rows[0].nmae }}" }')).toEqual([
      { code: 'PIPE4006', message: 'no field `nmae` on `message.rows[0]`' },
    ]);
    expect(check('  csv parse { text: "id" }\n  log { message: "{{ message.batches }}" }')).toEqual([
      { code: 'PIPE4006', message: 'no field `batches` on `message`' },
    ]);
    expect(check('  csv generate { rows: [] }\n  log { message: "{{ message.file }}" }')).toEqual([
      { code: 'PIPE4006', message: 'no field `file` on `message`' },
    ]);
  });

  it('closes rows over the columns written, and gives lists of cells without a header', () => {
    expect(
      check(
        '  csv parse { text: "1,2", header: false, columns: ["a", "b"] }\n  log { message: "{{ message.rows[0].c }}" }',
      ),
    ).toEqual([{ code: 'PIPE4006', message: 'no field `c` on `message.rows[0]`' }]);
    expect(check('  csv parse { text: "1,2", header: false }\n  log { message: "{{ message.rows[0][1] }}" }')).toEqual(
      [],
    );
  });

  it('refuses parameters of the other operation, both inputs, and a missing one', () => {
    expect(check('  csv generate { rows: [], trim: true }')).toEqual([
      { code: 'PIPE3015', message: '`trim` is not a parameter of `csv generate`' },
    ]);
    expect(check('  csv parse { text: "a", file: "a.csv", quote-all: true }')).toEqual([
      { code: 'PIPE3015', message: '`csv parse` takes one of `file` or `text`, not both' },
      { code: 'PIPE3015', message: '`quote-all` is not a parameter of `csv parse`' },
    ]);
    expect(check('  csv parse { }')).toEqual([{ code: 'PIPE3002', message: '`csv parse` needs `file` or `text`' }]);
    expect(check('  csv { text: "a" }').map((d) => d.code)).toEqual(['PIPE3002']);
    expect(check('  csv parse { text: "a", batch-pipeline: nowhere }').map((d) => d.code)).toEqual(['PIPE2007']);
  });
});

describe('xml at compile time', () => {
  it('types parse by its schema, open without one, and generate by its output', () => {
    expect(check('  xml parse { text: "<id>1</id>", schema: Row }\n  log { message: "{{ message.nmae }}" }')).toEqual([
      { code: 'PIPE4006', message: 'no field `nmae` on `message`' },
    ]);
    expect(check('  xml parse { text: "<a/>" }\n  log { message: "{{ message.a.b }}" }')).toEqual([]);
    expect(
      check('  xml generate { document: { a: 1 } }\n  log { message: "{{ message.text }} {{ message.file }}" }'),
    ).toEqual([{ code: 'PIPE4006', message: 'no field `file` on `message`' }]);
  });

  it('types the records of record mode by the schema', () => {
    expect(
      check(`  xml parse a { text: "<c><id>1</id></c>", record: "c/id", schema: Row, on-invalid: reject, batch-pipeline: load }
  log { message: "{{ step.a.records[0].id }} {{ step.a.recordCount }} {{ step.a.rejected[0].line }} {{ step.a.batches }}" }`),
    ).toEqual([]);
    expect(
      check(
        '  xml parse { text: "<c/>", record: "c/r", schema: Row }\n  log { message: "{{ message.records[0].nmae }} {{ message.batches }}" }',
      ),
    ).toEqual([
      { code: 'PIPE4006', message: 'no field `nmae` on `message.records[0]`' },
      { code: 'PIPE4006', message: 'no field `batches` on `message`' },
    ]);
  });

  it('refuses parameters of the other operation and a generate without document', () => {
    expect(check('  xml generate { document: { a: 1 }, max-depth: 3 }')).toEqual([
      { code: 'PIPE3015', message: '`max-depth` is not a parameter of `xml generate`' },
    ]);
    expect(check('  xml generate { indent: 0 }')).toEqual([
      { code: 'PIPE3002', message: 'missing required parameter `document` for `xml generate`' },
    ]);
  });
});
