/**
 * Time zones written as literals: whether the run time accepts one is decided by the run time's
 * own code (the caller passes it), and a rejected one gets the closest zone the platform knows
 * (`America/Sao_Paolo` → `America/Sao_Paulo`). Shared by the Double Braces date functions' zone
 * arguments (constant-args.ts) and by parameters whose schema says `"format": "timezone"`
 * (compiler/check/param-formats.ts).
 */
import { IANAZone } from 'luxon';
import { suggest } from '../../base/diagnostics/suggest.js';

let zoneNames: readonly string[] | undefined;

/** The IANA zones of the platform's time-zone data (Intl), with `UTC`, which Intl lists apart. */
function knownZones(): readonly string[] {
  zoneNames ??= ['UTC', ...Intl.supportedValuesOf('timeZone')];
  return zoneNames;
}

/**
 * The zone closest to a rejected one, when one is close enough to be a typo; for a whole-hour
 * offset (`GMT-3`, `-03:00`), the IANA zone of that offset (`Etc/GMT+3`: POSIX inverts the sign).
 */
export function closestZone(written: string): string | undefined {
  const text = written.trim();
  const offset = /^(?:UTC|GMT|UT)?\s*([+-])(\d{1,2})(?::?00)?$/i.exec(text);
  if (offset) {
    const hours = Number(offset[2]);
    const zone = hours === 0 ? 'UTC' : `Etc/GMT${offset[1] === '-' ? '+' : '-'}${hours}`;
    return isPlatformZone(zone) ? zone : undefined;
  }
  return suggest(text, knownZones());
}

/**
 * A zone name as the time-zone data of the platform (Intl, which croner and luxon both use)
 * accepts it: IANA names in any case, `UTC`, `GMT`, `Etc/GMT+3`. The empty text is the default
 * zone where a parameter takes one, so it is not reported.
 * @example isPlatformZone('America/Sao_Paulo') // true
 */
export function isPlatformZone(name: string): boolean {
  return name === '' || IANAZone.isValidZone(name);
}
