import { describe, expect, it } from 'vitest';
import type { CompiledValidator, ValidationErrorLike } from '../types.js';
import { trigger as eventTrigger } from '../triggers/event/event.js';
import { trigger as httpTrigger } from '../triggers/http/http.js';
import { collectViolations } from './validation.js';

function failingWith(errors: ValidationErrorLike[]): CompiledValidator {
  return Object.assign(() => false, { errors });
}

describe('violations', () => {
  it('points required and additionalProperties errors at the property', () => {
    const v = failingWith([
      {
        instancePath: '/items/0',
        schemaPath: '',
        keyword: 'required',
        params: { missingProperty: 'a/b' },
        message: "must have required property 'a/b'",
      },
      {
        instancePath: '',
        schemaPath: '',
        keyword: 'additionalProperties',
        params: { additionalProperty: 'extra' },
        message: 'must NOT have additional properties',
      },
      { instancePath: '/total', schemaPath: '', keyword: 'type', params: {}, message: 'must be number' },
    ]);
    expect(collectViolations(v, {})).toEqual([
      { path: '/items/0/a~1b', message: "must have required property 'a/b'" },
      { path: '/extra', message: "must not have property 'extra'" },
      { path: '/total', message: 'must be number' },
    ]);
  });

  it('validates the body of HTTP envelopes and whole event payloads', () => {
    const seen: unknown[] = [];
    const record: CompiledValidator = (d) => {
      seen.push(d);
      return true;
    };
    expect(
      httpTrigger.validate?.(
        { kind: 'http', methods: ['POST'], path: '/', maxBodySize: 1, validateBody: record },
        { body: { a: 1 } },
      ),
    ).toBeNull();
    expect(
      eventTrigger.validate?.(
        { kind: 'event', event: 'e', expiration: 1, maxTimeout: 1, maxDeliveries: 1, validateBody: record },
        { a: 2 },
      ),
    ).toBeNull();
    expect(seen).toEqual([{ a: 1 }, { a: 2 }]);
  });
});
