/**
 * Near misses: a read of a field an OPEN shape does not declare, whose name is one slip away from
 * a name it does declare. An open shape allows fields it does not list, so an undeclared read is
 * not wrong in itself; but a read one slip away from a declared name (`totl` for `total`,
 * `employee` for `employee_name`, `errorMessage` for `message`) is a typo in practice, and it
 * silently reads null at run time.
 *
 * A read `r` is a near miss of a declared name `d` (r ≠ d) when one of these holds:
 *  1. spelling: the same name ignoring case and the separators `_` and `-`
 *     (`employeeName` / `employee_name`, `OrderID` / `orderId`);
 *  2. one edit: one letter inserted, deleted, replaced, or two neighbours swapped (case and
 *     separators ignored), when the longer name has at least 5 characters and the shorter at
 *     least 4 (`totl`, `amont`; never `data` / `date`), but not the plural of the other
 *     (`items` / `item`, `cities` / `city`, `prices` / `price`: a list beside one value is
 *     common data, not a slip), not an edit of the first letter (`weight` / `height`, `mail` /
 *     `email`: a slip keeps it), and not one of a few common pairs of distinct fields
 *     (`county` / `country`, `content` / `context`, `expires` / `expired`);
 *  3. two declared names run together, on the failure object a `catch` or `on-fail` sees (it
 *     declares `error`, `message`, `code` and `kind`): the read is a declared name with one more word
 *     at its start or its end, and that word is itself a declared name (`errorMessage`): it is a
 *     near miss of the one that ends it. Not on other shapes: the author's data holds such
 *     fields as often as not (`contactEmail` beside `contact` and `email`).
 * A declared name with one more word that is not declared (`totalTax` beside `total`,
 * `userName` beside `user`, `shippingAddress` beside `address`), or one word less
 * (`user` beside `userName`), is no near miss: an open shape declares what its author
 * validates, and data commonly holds such related fields side by side, so a read of one is no
 * sign of a typo. Never a near miss either: names that differ only in digits (`address1` /
 * `address2`, `line` / `line2`), and names one word apart whose shared words are shorter than
 * 4 characters together (`id` / `userId`).
 * Pure; used by the JSONPath and Double Braces field reads.
 */
import { editDistance } from '../../base/diagnostics/suggest.js';
import type { PipeType } from './pipe-type.js';

/** The declared name `read` is a near miss of, or undefined (also when `read` is declared). */
export function nearMiss(
  read: string,
  declared: readonly string[],
  holdsObject: (name: string) => boolean = () => false,
): string | undefined {
  if (declared.includes(read)) return undefined;
  const byRank: string[][] = [[], [], []];
  for (const name of [...new Set(declared)].sort()) {
    const rank = nearMissRank(read, name, holdsObject(name));
    if (rank !== undefined) byRank[rank]?.push(name);
  }
  const [spelling, edit, words] = byRank as [string[], string[], string[]];
  if (spelling.length > 0) return spelling[0];
  if (edit.length > 0) return edit[0];
  // Two declared names run together (`errorMessage` with `error` and `message` declared): the one
  // that ends it names what the field is. Only on the platform's failure object, whose names are
  // fixed: in the author's data such a name is a field of its own as often as not (`contactEmail`
  // beside `contact` and `email`, `deliveryAddress` beside `delivery` and `address`).
  if (!failureObject(declared)) return undefined;
  const readWords = wordsOf(read);
  const inside = words.filter((name) => wordsOf(name).length < readWords.length);
  if (inside.length < 2) return undefined;
  return inside.find((name) => wordsOf(name).at(-1) === readWords.at(-1));
}

/** The fields of the failure object a `catch` or an `on-fail` sees (`error`, `message`, `code`, `kind`…). */
function failureObject(declared: readonly string[]): boolean {
  return ['error', 'message', 'code', 'kind'].every((name) => declared.includes(name));
}

/** 0, 1 or 2: the rule (spelling, one edit, one word) by which `read` is a near miss of `name`. */
function nearMissRank(read: string, name: string, object: boolean): 0 | 1 | 2 | undefined {
  if (read === name) return undefined;
  // `_id` beside `id`, `_links` beside `links`: a leading underscore marks another field (a store's
  // or an API's own), not a slip.
  if (read.startsWith('_') !== name.startsWith('_')) return undefined;
  const a = flat(read);
  const b = flat(name);
  if (a === b) return 0;
  if (a.replace(/\d+/gu, '') === b.replace(/\d+/gu, '')) return undefined;
  // `lines` beside `line1`, `orders` beside `order2`: a list beside one numbered value.
  if (/\d/u.test(a + b) && pluralOf(a.replace(/\d+/gu, ''), b.replace(/\d+/gu, ''))) return undefined;
  const longer = Math.max(a.length, b.length);
  const shorter = Math.min(a.length, b.length);
  // A slip keeps the first letter; `weight` / `height`, `mail` / `email` are different fields.
  if (longer >= 5 && shorter >= 4 && a[0] === b[0] && editDistance(a, b) === 1)
    return pluralOf(a, b) || inflectionOf(a, b) || DISTINCT_FIELDS.has(`${[a, b].sort().join(' ')}`) ? undefined : 1;
  const readWords = wordsOf(read);
  const nameWords = wordsOf(name);
  if (!oneWordApart(readWords, nameWords)) return undefined;
  if (readWords.length > nameWords.length) {
    // `customerName` beside a declared object `customer`, `orderId` beside `order`, `totalCount`
    // beside `total`: a field of its own in practice (a flattened member, an identifier, a count).
    const extra = readWords[0] === nameWords[0] ? readWords.at(-1) : readWords[0];
    if (object || OWN_FIELD_WORDS.has(extra as string)) return undefined;
  }
  return 2;
}

/** Words that, added to a name, make the name of another field: an identifier, a count, a time… */
const OWN_FIELD_WORDS: ReadonlySet<string> = new Set([
  'id',
  'ids',
  'uuid',
  'key',
  'code',
  'number',
  'no',
  'num',
  'count',
  'total',
  'type',
  'kind',
  'at',
  'date',
  'time',
  'timestamp',
  'url',
  'uri',
]);

/** Pairs of common field names one edit apart that name different things (flat, sorted, space-joined). */
const DISTINCT_FIELDS: ReadonlySet<string> = new Set([
  'country county',
  'stage state',
  'quota quote',
  'count county',
  'roles rules',
  'lines links',
  'scope score',
  'scopes scores',
  'score store',
  'scores stores',
  'sites sizes',
  'shops stops',
  'trace trade',
  'traces trades',
  'content context',
  'debit debt',
  'expired expires',
  'created creates',
  'updated updates',
  'enabled enables',
]);

/**
 * Whether one flat name is the English plural of the other (`items` / `item`, `boxes` / `box`,
 * `cities` / `city`, `diagnoses` / `diagnosis`).
 */
function pluralOf(a: string, b: string): boolean {
  const [one, many] = a.length < b.length ? [a, b] : [b, a];
  return (
    many === `${one}s` ||
    many === `${one}es` ||
    (one.endsWith('y') && many === `${one.slice(0, -1)}ies`) ||
    (one.endsWith('is') && many === `${one.slice(0, -2)}es`)
  );
}

/**
 * Whether two flat names are two forms of one word ending in `e`: a verb and its participle
 * (`approve` / `approved`, `create` / `created`, `take` / `taken`), a verb and its agent (`issue` /
 * `issuer`, `provide` / `provider`, `manage` / `manager`), or two of its forms ending in
 * `-ed`, `-er`, `-ee`, `-es`, `-en` (`payer` / `payee`, `employer` / `employee`, `approver` /
 * `approved`, `updated` / `updates`): data holds such fields side by side, as different things.
 */
function inflectionOf(a: string, b: string): boolean {
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  const stem = a.slice(0, common);
  if (!stem.endsWith('e') || stem.length < 4) return false;
  const tails = [a.slice(common), b.slice(common)].sort();
  const [x, y] = tails as [string, string];
  const ENDINGS = ['d', 'r', 'e', 's', 'n'];
  return (x === '' && (y === 'd' || y === 'n' || y === 'r')) || (ENDINGS.includes(x) && ENDINGS.includes(y));
}

/** Lower case, without `_` and `-`. */
function flat(name: string): string {
  return name.toLowerCase().replace(/[_-]/gu, '');
}

/** `validationErrors` → validation, errors; `employee_name` → employee, name; `line2` → line, 2. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z\d])([A-Z])/gu, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/gu, '$1 $2')
    .replace(/([A-Za-z])(\d)|(\d)([A-Za-z])/gu, (_m, l1, d1, d2, l2) => (l1 ? `${l1} ${d1}` : `${d2} ${l2}`))
    .split(/[\s_\-.]+/u)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** One list is the other with one more (non-digit) word at its start or its end; shared words ≥ 4 characters. */
function oneWordApart(x: readonly string[], y: readonly string[]): boolean {
  const [short, long] = x.length < y.length ? [x, y] : [y, x];
  if (long.length !== short.length + 1 || short.length === 0) return false;
  if (short.join('').length < 4) return false;
  const same = (from: number): boolean => short.every((w, i) => long[from + i] === w);
  if (same(0) && !/^\d+$/u.test(long[long.length - 1] as string)) return true;
  return same(1) && !/^\d+$/u.test(long[0] as string);
}

/** Whether a field's type may be an object (so a name with one more word may be a flattened member). */
export function holdsObject(type: PipeType | undefined): boolean {
  if (type === undefined) return false;
  if (type.kind === 'union') return type.members.some(holdsObject);
  return type.kind === 'object';
}
