import { describe, expect, it } from 'vitest';
import { INTEGER, objectOf, STRING } from '../types/pipe-type.js';
import { markSecret } from '../types/secret.js';
import { renderShape } from './features.js';

describe('renderShape', () => {
  it('says where a secret field of the message comes from', () => {
    const shape = objectOf({ id: INTEGER, token: markSecret(STRING, { from: 'account.crm.token' }) });
    expect(renderShape(shape, 0)).toBe('{\n  id: integer\n  token: string /* secret: account.crm.token */\n}');
  });
});
