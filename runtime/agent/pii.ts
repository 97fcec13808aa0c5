/**
 * PII masking for what the agent SENDS to a model (system and user messages, tool results).
 * In: text; out: the text with each detected item replaced by its category placeholder, and how
 * many of each category were found. Categories and formats are listed in ./README.md.
 *
 * Every pattern is linear-time: no nested or overlapping quantifiers, bounded repetition, and a
 * lookbehind that only lets a match start where a run begins. Candidates are then confirmed in code
 * (Luhn, CPF/CNPJ check digits, IBAN mod-97, node's IPv6 parser), which keeps false positives low
 * without making the regexes clever.
 */
import { isIPv6 } from 'node:net';

export type PiiCategory = 'EMAIL' | 'PHONE' | 'CREDIT_CARD' | 'CPF' | 'CNPJ' | 'IBAN' | 'IP';

export interface MaskResult {
  readonly text: string;
  readonly found: Record<PiiCategory, number>;
}

interface Detector {
  readonly category: PiiCategory;
  /** Global, linear-time candidate pattern. */
  readonly pattern: RegExp;
  /** Confirms a candidate (checksums, structure). */
  readonly accept: (candidate: string) => boolean;
}

const always = (): boolean => true;
const IPV4_OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';

/** Order matters: longer, checksum-confirmed identifiers go first so their digits are gone before phones. */
const DETECTORS: readonly Detector[] = [
  {
    category: 'EMAIL',
    pattern: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9-])/g,
    accept: always,
  },
  {
    category: 'IBAN',
    pattern: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![A-Za-z0-9])/g,
    accept: (candidate) => isValidIban(candidate),
  },
  {
    category: 'CNPJ',
    pattern: /(?<!\d)(?:\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}|\d{14})(?!\d)/g,
    accept: (candidate) => isValidCnpj(candidate),
  },
  {
    category: 'CPF',
    pattern: /(?<!\d)(?:\d{3}\.\d{3}\.\d{3}-\d{2}|\d{11})(?!\d)/g,
    accept: (candidate) => isValidCpf(candidate),
  },
  {
    category: 'CREDIT_CARD',
    // 13–19 digits, optionally grouped by single spaces or dashes; not right after '+' (a phone).
    pattern: /(?<![\d+])\d(?:[ -]?\d){12,18}(?!\d)/g,
    accept: (candidate) => passesLuhn(digitsOf(candidate)),
  },
  {
    category: 'IP',
    pattern: new RegExp(`(?<![\\d.])(?:${IPV4_OCTET}\\.){3}${IPV4_OCTET}(?!\\d|\\.\\d)`, 'g'),
    accept: always,
  },
  {
    category: 'IP',
    pattern: /(?<![\w:])[0-9A-Fa-f:]{2,39}(?![\w:])/g,
    accept: (candidate) => candidate.includes(':') && isIPv6(candidate),
  },
  {
    category: 'PHONE',
    // International (E.164 with separators): '+', then 8–15 digits in total.
    pattern: /(?<![\w+])\+\d[\d ().-]{6,22}\d(?!\d)/g,
    accept: (candidate) => {
      const count = digitsOf(candidate).length;
      return count >= 8 && count <= 15;
    },
  },
  {
    category: 'PHONE',
    // Brazilian: (11) 91234-5678, (11) 1234 5678, 11 91234-5678 — a DDD then 8 or 9 digits.
    pattern: /(?<![\w(])(?:\([1-9]{2}\) ?[2-9]?\d{4}[- ]?\d{4}|[1-9]{2}[ -][2-9]?\d{4}[- ]\d{4})(?!\d)/g,
    accept: always,
  },
];

export function emptyFindings(): Record<PiiCategory, number> {
  return { EMAIL: 0, PHONE: 0, CREDIT_CARD: 0, CPF: 0, CNPJ: 0, IBAN: 0, IP: 0 };
}

/** Masks every detected item; `found` counts them per category (zero for categories not seen). */
export function maskPii(text: string): MaskResult {
  const found = emptyFindings();
  let masked = text;
  for (const detector of DETECTORS) {
    masked = masked.replace(detector.pattern, (candidate) => {
      if (!detector.accept(candidate)) return candidate;
      found[detector.category] += 1;
      return `[${detector.category}]`;
    });
  }
  return { text: masked, found };
}

// ───────────────────────────── checksums ─────────────────────────────

function digitsOf(text: string): number[] {
  const digits: number[] = [];
  for (const ch of text) if (ch >= '0' && ch <= '9') digits.push(ch.charCodeAt(0) - 48);
  return digits;
}

export function passesLuhn(digits: readonly number[]): boolean {
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const digit = digits[digits.length - 1 - i] ?? 0;
    const doubled = i % 2 === 1 ? digit * 2 : digit;
    sum += doubled > 9 ? doubled - 9 : doubled;
  }
  return sum % 10 === 0;
}

/** Brazilian CPF: 11 digits, two mod-11 check digits, not all digits equal. */
export function isValidCpf(text: string): boolean {
  const d = digitsOf(text);
  if (d.length !== 11 || d.every((x) => x === d[0])) return false;
  return checkDigit(d.slice(0, 9), 10) === d[9] && checkDigit(d.slice(0, 10), 11) === d[10];
}

function checkDigit(digits: readonly number[], firstWeight: number): number {
  let sum = 0;
  digits.forEach((digit, i) => {
    sum += digit * (firstWeight - i);
  });
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/** Brazilian CNPJ: 14 digits, two mod-11 check digits with weights 5..2,9..2 and 6..2,9..2. */
export function isValidCnpj(text: string): boolean {
  const d = digitsOf(text);
  if (d.length !== 14 || d.every((x) => x === d[0])) return false;
  const first = cnpjCheckDigit(d.slice(0, 12), [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = cnpjCheckDigit(d.slice(0, 13), [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return first === d[12] && second === d[13];
}

function cnpjCheckDigit(digits: readonly number[], weights: readonly number[]): number {
  let sum = 0;
  digits.forEach((digit, i) => {
    sum += digit * (weights[i] ?? 0);
  });
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/** IBAN: 15–34 characters, country code, check digits, mod-97 of the rearranged number equals 1. */
export function isValidIban(text: string): boolean {
  const compact = text.replace(/ /g, '');
  if (compact.length < 15 || compact.length > 34 || !/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = ch >= 'A' && ch <= 'Z' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    remainder = value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder === 1;
}
