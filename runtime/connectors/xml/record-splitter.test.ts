import { describe, expect, it } from 'vitest';
import { PipeError } from '../../errors.js';
import { splitRecords, type SplitOptions, type XmlRecord } from './record-splitter.js';

const OPTIONS: SplitOptions = { path: 'c/r', maxDepth: 16, maxRecordSize: 10_000, stripPrefixes: false };

async function split(chunks: readonly string[], options: Partial<SplitOptions> = {}): Promise<XmlRecord[]> {
  const out: XmlRecord[] = [];
  async function* source(): AsyncGenerator<string> {
    yield* chunks;
  }
  for await (const record of splitRecords(source(), { ...OPTIONS, ...options })) out.push(record);
  return out;
}

/** Every way of cutting the text into chunks of `size` characters. */
const pieces = (text: string, size: number): string[] =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

const DOC = [
  '<?xml version="1.0"?>',
  '<c>',
  '  <!-- <r>not a record</r> -->',
  '  <r a=">" b=\'/>\'>1<![CDATA[</r>]]></r>',
  '  <x><r>nested: not at the path</r></x>',
  '  <r/>',
  '  <?pi <r>?>',
  '  <r>',
  '    <r>inner</r>',
  '  </r>',
  '</c>',
].join('\n');

const EXPECTED: XmlRecord[] = [
  { text: '<r a=">" b=\'/>\'>1<![CDATA[</r>]]></r>', line: 4 },
  { text: '<r/>', line: 6 },
  { text: '<r>\n    <r>inner</r>\n  </r>', line: 8 },
];

describe('splitRecords', () => {
  it('finds the records at the path whatever the chunks are', async () => {
    for (const size of [1, 2, 3, 7, 64, DOC.length])
      expect(await split(pieces(DOC, size)), `chunks of ${size}`).toEqual(EXPECTED);
  });

  it('matches names without prefixes when asked', async () => {
    const doc = '<o:c xmlns:o="urn:x"><o:r>1</o:r></o:c>';
    expect(await split([doc])).toEqual([]);
    expect(await split([doc], { stripPrefixes: true })).toEqual([{ text: '<o:r>1</o:r>', line: 1 }]);
  });

  it('reports structural faults with line and column, whatever the chunks are', async () => {
    const cases: [string, string, Record<string, number>?][] = [
      ['<c>\n  <r></x></c>', 'MALFORMED_XML', { line: 2, column: 6 }],
      ['<c><r>', 'MALFORMED_XML'],
      ['<c></c></c>', 'MALFORMED_XML'],
      ['<c><!-- never closed', 'MALFORMED_XML'],
      ['<c>\n<!DOCTYPE c [<!ENTITY e "e">]>', 'XML_DOCTYPE_REFUSED', { line: 2, column: 1 }],
      ['<c><!ELEMENT c ANY></c>', 'MALFORMED_XML'],
    ];
    for (const [doc, kind, details] of cases) {
      for (const size of [1, 5, doc.length]) {
        const err = await split(pieces(doc, size)).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, `${doc} in chunks of ${size}`).toBeInstanceOf(PipeError);
        expect((err as PipeError).kind, doc).toBe(kind);
        if (details) expect((err as PipeError).details, doc).toEqual(details);
      }
    }
  });

  it('keeps to the depth and size limits', async () => {
    const deep = `<c>${'<d>'.repeat(20)}${'</d>'.repeat(20)}</c>`;
    expect((await split([deep]).catch((e: PipeError) => e)) as PipeError).toMatchObject({ kind: 'XML_TOO_DEEP' });
    const big = `<c><r>${'x'.repeat(200)}</r></c>`;
    expect((await split([big], { maxRecordSize: 100 }).catch((e: PipeError) => e)) as PipeError).toMatchObject({
      kind: 'XML_TOO_LARGE',
      code: 413,
    });
    expect(await split([big], { maxRecordSize: 300 })).toHaveLength(1);
  });
});
