import { describe, expect, it } from 'vitest';
import { bracesFromToken, decodeNumber, decodeQuotedString, decodeTripleString } from './token-values.js';

const F = 't.pipe';

describe('decodeQuotedString', () => {
  it('decodes JSON escapes in both quote styles', () => {
    expect(decodeQuotedString(F, '"a\\n\\t\\u00e9\\"\\\\"', 0).value).toMatchObject({
      kind: 'string',
      value: 'a\n\té"\\',
    });
    expect(decodeQuotedString(F, "'it\\'s'", 0).value).toMatchObject({ kind: 'string', value: "it's" });
  });

  it('reports an invalid escape with its exact span and a regex hint', () => {
    const result = decodeQuotedString(F, '"^\\d+$"', 10);
    expect(result.diagnostics.map((d) => [d.code, d.primary.span.start, d.primary.span.end])).toEqual([
      ['PIPE1005', 12, 14],
    ]);
    expect(result.diagnostics[0]?.hint).toContain('\\\\d');
  });

  it('splits a template into text and braces parts with host offsets', () => {
    // host:   0         1         2
    //         0123456789012345678901234567
    const image = '"Hi {{ message.name }}!"';
    const result = decodeQuotedString(F, image, 100);
    expect(result.diagnostics).toEqual([]);
    expect(result.value).toEqual({
      kind: 'template',
      multiline: false,
      span: { file: F, start: 100, end: 124 },
      parts: [
        { kind: 'text', value: 'Hi ', span: { file: F, start: 101, end: 104 } },
        { kind: 'braces', text: ' message.name ', textStart: 106, span: { file: F, start: 104, end: 122 } },
        { kind: 'text', value: '!', span: { file: F, start: 122, end: 123 } },
      ],
    });
  });

  it('records per-character offsets when escapes inside the expression change lengths', () => {
    const image = '"{{ a[\\"b\\"] }}"';
    const value = decodeQuotedString(F, image, 0).value;
    expect(value.kind).toBe('template');
    const braces = value.kind === 'template' ? value.parts[0] : undefined;
    expect(braces).toMatchObject({ kind: 'braces', text: ' a["b"] ', textStart: 3 });
    const offsets = braces?.kind === 'braces' ? braces.offsets : undefined;
    // text: ' a [ " b " ] ' → host: 3 4 5 6 8 9 11 12, end 13
    expect(offsets).toEqual([3, 4, 5, 6, 8, 9, 11, 12, 13]);
    expect(image.slice(offsets?.[4] ?? 0, (offsets?.[4] ?? 0) + 1)).toBe('b');
  });

  it('keeps nested braces and quoted `}}` inside the expression', () => {
    const value = decodeQuotedString(F, '"{{ f({a: {b: 1}}, \'}}\') }}"', 0).value;
    expect(value).toMatchObject({ kind: 'template', parts: [{ kind: 'braces', text: " f({a: {b: 1}}, '}}') " }] });
  });

  it('treats \\{{ as a literal {{', () => {
    const result = decodeQuotedString(F, '"use \\{{ name }} here"', 0);
    expect(result.value).toMatchObject({ kind: 'string', value: 'use {{ name }} here' });
    expect(result.diagnostics).toEqual([]);
  });

  it('reads `{{ x }` inside a string as an unterminated expression and keeps the text after it', () => {
    const result = decodeQuotedString(F, '"a {{ b } c"', 0);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PIPE1004']);
    expect(result.value).toMatchObject({
      kind: 'template',
      parts: [{ value: 'a ' }, { kind: 'braces', text: ' b ' }, { value: ' c' }],
    });
  });

  it('reports a `}` after `}}` or a `{` before `{{` that no brace of the text matches, at that brace', () => {
    const result = decodeQuotedString(F, '"{{ message.model }}}"', 10);
    expect(result.diagnostics.map((d) => [d.code, d.primary.span.start, d.primary.span.end])).toEqual([
      ['PIPE1028', 30, 31],
    ]);
    expect(result.value).toMatchObject({ kind: 'template', parts: [{ kind: 'braces' }, { value: '}' }] });
    const spaced = decodeQuotedString(F, '"{ {{ x }} }{{ y }}  }"', 0);
    expect(spaced.diagnostics.map((d) => [d.code, d.primary.span.start, d.message.slice(0, 9)])).toEqual([
      ['PIPE1028', 21, 'stray `}`'],
    ]);
    const open = decodeQuotedString(F, '"id: { {{ x }}"', 0);
    expect(open.diagnostics.map((d) => [d.code, d.primary.span.start, d.message.slice(0, 9)])).toEqual([
      ['PIPE1028', 5, 'stray `{`'],
    ]);
    const twice = decodeQuotedString(F, '"a {{ x }}}-{{ y }}}}"', 0);
    expect(twice.diagnostics.map((d) => [d.code, d.primary.span.start])).toEqual([
      ['PIPE1028', 10],
      ['PIPE1028', 19],
    ]);
  });

  it('keeps quiet on braces the text balances, escaped braces and braces away from an expression', () => {
    for (const image of [
      '"{\\"a\\": {{ x }}}"',
      '"{\\"a\\": {\\"b\\": \\"{{ x }}\\"}}"',
      '"\\{ {{ x }}}"',
      '"{{ {\\"a\\": 1} }}"',
      '"set { {{ x }} }"',
    ]) {
      expect(decodeQuotedString(F, image, 0).diagnostics, image).toEqual([]);
    }
    const triple = decodeTripleString(F, '"""\n{\n  "total": {{ message.total }}}\n"""', 0);
    expect(triple.diagnostics).toEqual([]);
  });

  it('reports a scope path between single braces in the text, at the braces', () => {
    const one = decodeQuotedString(F, '"order {message.body.id} in"', 0);
    expect(one.diagnostics.map((d) => [d.code, d.primary.span.start, d.primary.span.end])).toEqual([
      ['PIPE1029', 7, 24],
    ]);
    expect(one.diagnostics[0]?.hint).toBe('write `{{ message.body.id }}`');
    const js = decodeQuotedString(F, '"{{ message.a }}/${ step.fetch.body[0] }"', 0);
    expect(js.diagnostics.map((d) => [d.code, d.primary.span.start])).toEqual([['PIPE1029', 17]]);
    expect(decodeQuotedString(F, '"{ global.prefix }}"', 0).diagnostics.map((d) => d.code)).toEqual(['PIPE1029']);
    const forgotten = decodeQuotedString(F, '"order  message.body.id }}"', 0);
    expect(forgotten.diagnostics.map((d) => [d.code, d.primary.span.start, d.primary.span.end])).toEqual([
      ['PIPE1029', 8, 26],
    ]);
  });

  it('keeps quiet on other words between braces, escaped braces and paths inside expressions', () => {
    for (const image of [
      '"/users/{id}/orders/{orderId}"',
      '"{message}"',
      '"{messages.id}"',
      '"\\{message.id}"',
      '"\\{{ message.id }}"',
      '"{{ {a: message.id} }}"',
      "\"{{ IF(true, '{message.id}', '') }}\"",
      '"x.message.id}}"',
      '"message.id }"',
      '"{\\"a\\": {\\"b\\": message.id}}"',
    ]) {
      expect(decodeQuotedString(F, image, 0).diagnostics, image).toEqual([]);
    }
  });

  it('reports an unterminated {{ inside a string', () => {
    const result = decodeQuotedString(F, '"a {{ b"', 0);
    expect(result.diagnostics.map((d) => [d.code, d.primary.span.start, d.primary.span.end])).toEqual([
      ['PIPE1004', 3, 5],
    ]);
    expect(result.value).toMatchObject({ kind: 'string', value: 'a {{ b' });
  });
});

describe('decodeTripleString', () => {
  it('drops the first and last line breaks and dedents by the common indentation', () => {
    const image = '"""\n      You are\n        an auditor.\n    """';
    expect(decodeTripleString(F, image, 0).value).toEqual({
      kind: 'string',
      value: 'You are\n  an auditor.',
      multiline: true,
      span: { file: F, start: 0, end: image.length },
    });
  });

  it('is raw except for \\{{, and keeps exact offsets for braces after dedent', () => {
    const image = '"""\n  a\\d "q"\n  {{ x }}\n  """';
    const value = decodeTripleString(F, image, 50).value;
    expect(value.kind).toBe('template');
    if (value.kind !== 'template') return;
    expect(value.parts[0]).toMatchObject({ kind: 'text', value: 'a\\d "q"\n' });
    const braces = value.parts[1];
    expect(braces).toMatchObject({ kind: 'braces', text: ' x ' });
    if (braces?.kind !== 'braces') return;
    expect(image.slice(braces.span.start - 50, braces.span.end - 50)).toBe('{{ x }}');
    expect(image.slice(braces.textStart - 50, braces.textStart - 50 + 3)).toBe(' x ');
  });
});

describe('bracesFromToken', () => {
  it('records text between the braces and its start', () => {
    expect(bracesFromToken(F, '{{ NOW() }}', 7)).toEqual({
      kind: 'braces',
      text: ' NOW() ',
      textStart: 9,
      span: { file: F, start: 7, end: 18 },
    });
  });
});

describe('decodeNumber', () => {
  const value = (raw: string) => decodeNumber(F, raw, 0).value;
  const codes = (raw: string) => decodeNumber(F, raw, 0).diagnostics.map((d) => d.code);

  it('reads numbers, durations in ms and 1024-based sizes', () => {
    expect(value('-1.5e2')).toMatchObject({ kind: 'number', value: -150, raw: '-1.5e2' });
    expect(value('0x1F')).toMatchObject({ kind: 'number', value: 31 });
    expect(value('250ms')).toMatchObject({ kind: 'duration', ms: 250 });
    expect(value('30s')).toMatchObject({ kind: 'duration', ms: 30_000 });
    expect(value('5m')).toMatchObject({ kind: 'duration', ms: 300_000 });
    expect(value('1h')).toMatchObject({ kind: 'duration', ms: 3_600_000 });
    expect(value('7d')).toMatchObject({ kind: 'duration', ms: 604_800_000 });
    expect(value('100B')).toMatchObject({ kind: 'size', bytes: 100 });
    expect(value('512KB')).toMatchObject({ kind: 'size', bytes: 524_288 });
    expect(value('10MB')).toMatchObject({ kind: 'size', bytes: 10_485_760 });
    expect(value('1GB')).toMatchObject({ kind: 'size', bytes: 1_073_741_824 });
  });

  it('reports unknown units with a suggestion, pointing at the unit', () => {
    const result = decodeNumber(F, '30sec', 4);
    expect(result.diagnostics.map((d) => [d.code, d.primary.span.start, d.primary.span.end])).toEqual([
      ['PIPE1006', 6, 9],
    ]);
    expect(result.diagnostics[0]?.hint).toContain('`s`');
    expect(decodeNumber(F, '10mb', 0).diagnostics[0]?.hint).toContain('`MB`');
  });

  it('reports invalid literals', () => {
    expect(codes('007')).toEqual(['PIPE1007']);
    expect(codes('0x')).toEqual(['PIPE1007']);
    expect(codes('1e400')).toEqual(['PIPE1007']);
    expect(codes('1.5ms')).toEqual(['PIPE1007']);
    expect(codes('-5s')).toEqual(['PIPE1007']);
    expect(codes('12345678901234567890')).toEqual(['PIPE1007']);
    expect(codes('0.5')).toEqual([]);
  });
});
