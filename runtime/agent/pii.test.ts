/** PII masking: each category masked, look-alikes left alone, linear time on adversarial input. */
import { describe, expect, it } from 'vitest';
import { isValidCnpj, isValidCpf, isValidIban, maskPii, passesLuhn } from './pii.js';

describe('maskPii', () => {
  it.each([
    ['write to maria.silva@example.com.br today', 'write to [EMAIL] today', 'EMAIL'],
    ['call +55 11 91234-5678 now', 'call [PHONE] now', 'PHONE'],
    ['call +1 (415) 555-2671 now', 'call [PHONE] now', 'PHONE'],
    ['call +44 20 7946 0958.', 'call [PHONE].', 'PHONE'],
    ['tel (11) 91234-5678 ok', 'tel [PHONE] ok', 'PHONE'],
    ['tel 11 3456-7890 ok', 'tel [PHONE] ok', 'PHONE'],
    ['card 4111 1111 1111 1111 exp', 'card [CREDIT_CARD] exp', 'CREDIT_CARD'],
    ['card 5500-0000-0000-0004', 'card [CREDIT_CARD]', 'CREDIT_CARD'],
    ['card 4012888888881881', 'card [CREDIT_CARD]', 'CREDIT_CARD'],
    ['cpf 529.982.247-25.', 'cpf [CPF].', 'CPF'],
    ['cpf 52998224725', 'cpf [CPF]', 'CPF'],
    ['cnpj 11.222.333/0001-81', 'cnpj [CNPJ]', 'CNPJ'],
    ['cnpj 11222333000181', 'cnpj [CNPJ]', 'CNPJ'],
    ['iban DE89 3704 0044 0532 0130 00 please', 'iban [IBAN] please', 'IBAN'],
    ['iban GB82WEST12345698765432', 'iban [IBAN]', 'IBAN'],
    ['host 192.168.0.1:8080', 'host [IP]:8080', 'IP'],
    ['v6 2001:db8::ff00:42:8329 here', 'v6 [IP] here', 'IP'],
    ['loopback ::1 here', 'loopback [IP] here', 'IP'],
  ])('masks %s', (input, expected, category) => {
    const result = maskPii(input);
    expect(result.text).toBe(expected);
    expect(result.found[category as keyof typeof result.found]).toBe(1);
  });

  it.each([
    'card 4111 1111 1111 1112 (fails Luhn)',
    'cpf 529.982.247-26 (wrong check digit)',
    'cpf 111.111.111-11 (all equal)',
    'cnpj 11.222.333/0001-82',
    'iban DE89 3704 0044 0532 0130 01',
    'order 12345 on 2024-01-15 at 12:30:45 costs 1,234.56',
    'version 1.2.3 and 10.0 and 999.1.1.1',
    'std::vector and a:b',
    'invoice 2024000123',
  ])('leaves %s alone', (input) => {
    const result = maskPii(input);
    expect(result.text).toBe(input);
    expect(Object.values(result.found).every((n) => n === 0)).toBe(true);
  });

  it('masks several items and counts each category', () => {
    const result = maskPii('a@b.io, c@d.io, +55 21 99876-5432, 4111111111111111');
    expect(result.text).toBe('[EMAIL], [EMAIL], [PHONE], [CREDIT_CARD]');
    expect(result.found).toEqual({ EMAIL: 2, PHONE: 1, CREDIT_CARD: 1, CPF: 0, CNPJ: 0, IBAN: 0, IP: 0 });
  });

  // No clock here: on 200 000 characters a backtracking pattern (quadratic or worse) would not end
  // within the test's timeout, while the linear ones take milliseconds.
  it('finishes on adversarial input (linear-time patterns)', () => {
    const inputs = [
      'a'.repeat(200_000) + '@',
      'a@' + 'b.'.repeat(100_000),
      '1 '.repeat(100_000),
      '+' + '1-'.repeat(100_000),
      'DE89' + ' 1234'.repeat(50_000),
      '1:'.repeat(100_000),
      '1.'.repeat(100_000),
      '(11) '.repeat(50_000),
    ];
    for (const input of inputs) expect(maskPii(input).text.length).toBeGreaterThan(0);
  });
});

describe('checksums', () => {
  it('Luhn', () => {
    expect(passesLuhn([...'4111111111111111'].map(Number))).toBe(true);
    expect(passesLuhn([...'4111111111111112'].map(Number))).toBe(false);
  });
  it('CPF, CNPJ, IBAN', () => {
    expect(isValidCpf('529.982.247-25')).toBe(true);
    expect(isValidCpf('529.982.247-24')).toBe(false);
    expect(isValidCnpj('11.222.333/0001-81')).toBe(true);
    expect(isValidCnpj('00.000.000/0000-00')).toBe(false);
    expect(isValidIban('FR14 2004 1010 0505 0001 3M02 606')).toBe(true);
    expect(isValidIban('FR14 2004 1010 0505 0001 3M02 607')).toBe(false);
  });
});
