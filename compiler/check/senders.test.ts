import { describe, expect, it } from 'vitest';
import { parseFile } from '../ast/parse-file.js';
import { loadRegistry } from '../connectors/load-registry.js';
import { collectDeclarations } from '../resolve/declarations.js';
import { INTEGER, NULL, STRING, UNKNOWN, type PipeType } from '../types/pipe-type.js';
import { lookupField } from '../types/type-ops.js';
import { narrowBySenders, schemaShowsItsFields, senderGraph, sentShape } from './senders.js';

const registry = await loadRegistry();
const span = { file: 'f.pipe', start: 0, end: 1 };
const object = (fields: Record<string, [PipeType, boolean]>, open = false): PipeType => ({
  kind: 'object',
  open,
  fields: Object.fromEntries(Object.entries(fields).map(([k, [type, required]]) => [k, { type, required }])),
});
const sent = (...types: PipeType[]) => types.map((type) => ({ type, span }));
const fieldsOf = (t: PipeType): string[] => (t.kind === 'object' ? Object.keys(t.fields).sort() : []);

/** The entrances of the build in `text`: per narrowed pipeline, its senders' pipelines. */
function entrances(text: string): Record<string, string[]> {
  const parsed = parseFile('/p/p.pipe', text);
  expect(parsed.diagnostics).toEqual([]);
  const decls = collectDeclarations([parsed.value], [], () => ({})).value;
  return Object.fromEntries(
    [...senderGraph(decls, registry)].map(([name, e]) => [name, e.senders.map((s) => s.pipeline)]),
  );
}

describe('narrowBySenders', () => {
  it('closes an open schema to its declared fields and those the senders send', () => {
    const declared = object({ id: [STRING, true], note: [STRING, false] }, true);
    const narrowed = narrowBySenders(declared, sent(object({ id: [STRING, true], extra: [INTEGER, true] })), 'w');
    expect(narrowed.kind === 'object' && narrowed.open).toBe(false);
    expect(fieldsOf(narrowed)).toEqual(['extra', 'id', 'note']);
    expect(lookupField(narrowed, 'missing').kind).toBe('missing');
    // A declared field keeps its declared type; a sent one takes the sender's.
    expect(lookupField(narrowed, 'note')).toEqual({ kind: 'found', type: { kind: 'union', members: [STRING, NULL] } });
    expect(lookupField(narrowed, 'extra')).toEqual({ kind: 'found', type: INTEGER });
  });

  it('gives a message without a schema the union of the senders, a field required when all send it', () => {
    const narrowed =
      sentShape(
        sent(object({ id: [STRING, true], a: [STRING, true] }), object({ id: [INTEGER, true], b: [STRING, true] })),
        'w',
      ) ?? UNKNOWN;
    expect(fieldsOf(narrowed)).toEqual(['a', 'b', 'id']);
    const fields = narrowed.kind === 'object' ? narrowed.fields : {};
    expect(fields['id']?.required).toBe(true);
    expect(fields['a']?.required).toBe(false);
    expect(narrowed.kind === 'object' && narrowed.sentBy?.senders.length).toBe(2);
  });

  it('narrows inside: an open object field the senders send as closed objects', () => {
    const declared = object({ detail: [object({}, true), false] }, true);
    const narrowed = narrowBySenders(
      declared,
      sent(object({ detail: [object({ reason: [STRING, true] }), true] })),
      'w',
    );
    const detail = narrowed.kind === 'object' ? narrowed.fields['detail']?.type : undefined;
    expect(detail && fieldsOf(detail)).toEqual(['reason']);
    expect(detail?.kind === 'object' && detail.sentBy?.path).toEqual(['detail']);
  });

  it('keeps the declared type when it cannot be sure', () => {
    const declared = object({ id: [STRING, true] }, true);
    // A sender of open or unknown shape, or of something other than an object.
    expect(narrowBySenders(declared, sent(object({ id: [STRING, true] }, true)), 'w')).toBe(declared);
    expect(narrowBySenders(declared, sent(object({ id: [STRING, true] }), UNKNOWN), 'w')).toBe(declared);
    expect(narrowBySenders(declared, sent(STRING), 'w')).toBe(declared);
    expect(narrowBySenders(declared, [], 'w')).toBe(declared);
    // A closed schema is already what it is; a declared scalar stays.
    const closed = object({ id: [STRING, true] });
    expect(narrowBySenders(closed, sent(object({ id: [STRING, true] })), 'w')).toBe(closed);
    expect(narrowBySenders(STRING, sent(object({ id: [STRING, true] })), 'w')).toBe(STRING);
    // A schema the checker could not read may declare anything.
    expect(narrowBySenders(UNKNOWN, sent(object({ id: [STRING, true] })), 'w')).toBe(UNKNOWN);
    expect(sentShape(sent(object({ id: [STRING, true] }), object({}, true)), 'w')).toBeUndefined();
  });

  it('narrows only by schemas whose type shows every field they declare', () => {
    expect(schemaShowsItsFields({ type: 'object', properties: { a: { $ref: '#/$defs/A' } } })).toBe(true);
    expect(schemaShowsItsFields({ type: 'object', if: { required: ['a'] }, then: { properties: { b: {} } } })).toBe(
      false,
    );
    expect(schemaShowsItsFields({ type: 'object', properties: { a: { patternProperties: { '^x': {} } } } })).toBe(
      false,
    );
    expect(schemaShowsItsFields({ $ref: 'https://example.com/order.json' })).toBe(false);
  });
});

const HTTP = 'trigger http { method: POST, path: "/x" }';

describe('senderGraph', () => {
  it('finds every publisher and caller of an event pipeline', () => {
    const text = `pipeline a {\n ${HTTP}\n publish e { payload: { x: 1 } }\n execute c { payload: { x: 2 } }\n}
pipeline b {\n trigger scheduler { cron: "0 * * * *" }\n publish e { payload: { x: 3 } }\n}
pipeline c {\n trigger event { name: "e" }\n log { message: "x" }\n}\n`;
    expect(entrances(text)).toEqual({ c: ['a', 'b', 'a'] });
  });

  it('leaves out a pipeline with a door from outside the build', () => {
    const consumer = `pipeline c {\n trigger event { name: "e" }\n log { message: "x" }\n}\n`;
    const publisher = (step: string) => `pipeline a {\n ${HTTP}\n ${step}\n}\n`;
    // The event is external on a publisher, or on the trigger.
    expect(entrances(publisher('publish e { payload: {}, external: true }') + consumer)).toEqual({});
    expect(
      entrances(
        publisher('publish e { payload: {} }') +
          'pipeline c {\n trigger event { name: "e", external: true }\n log { message: "x" }\n}\n',
      ),
    ).toEqual({});
    // A publish of a computed event name may send any event.
    expect(
      entrances(
        publisher('publish e { payload: {} }') +
          publisher('publish "{{ message.body.e }}" { payload: {} }').replace('pipeline a', 'pipeline d') +
          consumer,
      ),
    ).toEqual({});
    // Nobody in the build publishes it.
    expect(entrances(consumer)).toEqual({});
    // An HTTP pipeline, even when executed.
    expect(
      entrances(
        `pipeline a {\n ${HTTP}\n execute b { payload: { body: {} } }\n}\npipeline b {\n trigger http { method: POST, path: "/b" }\n log { message: "x" }\n}\n`,
      ),
    ).toEqual({});
  });

  it('leaves out a pipeline sent to from a capsule', () => {
    const text = `capsule k() -> { type: "object" } {\n publish e { payload: { x: 1 } }\n}
pipeline a {\n ${HTTP}\n publish e { payload: { x: 1 } }\n k { }\n}
pipeline c {\n trigger event { name: "e" }\n log { message: "x" }\n}\n`;
    expect(entrances(text)).toEqual({});
  });
});
