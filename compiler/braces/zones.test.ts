import { describe, expect, it } from 'vitest';
import { zoneOf } from '../../runtime/braces/date-pattern.js';
import { closestZone, isPlatformZone } from './zones.js';

describe('time zones written as literals', () => {
  it('accepts the zones of the platform data in any case, and the empty default', () => {
    for (const zone of ['America/Sao_Paulo', 'america/sao_paulo', 'UTC', 'Etc/GMT+3', 'Asia/Calcutta', ''])
      expect(isPlatformZone(zone), zone).toBe(true);
    for (const zone of ['America/Sao_Paolo', 'GMT-3', '+03:00', 'Z', 'Mars/Olympus'])
      expect(isPlatformZone(zone), zone).toBe(false);
  });

  it('agrees with the Double Braces run time on every IANA zone (it adds fixed offsets of its own)', () => {
    for (const zone of Intl.supportedValuesOf('timeZone')) expect(zoneOf(zone), zone).toBeDefined();
    expect(zoneOf('GMT-3')).toBeDefined();
  });

  it('suggests the closest zone, and the IANA zone of a whole-hour offset', () => {
    expect(closestZone('America/Sao_Paolo')).toBe('America/Sao_Paulo');
    expect(closestZone('Europe/Berlni')).toBe('Europe/Berlin');
    expect(closestZone('GMT-3')).toBe('Etc/GMT+3');
    expect(closestZone('+05:00')).toBe('Etc/GMT-5');
    expect(closestZone('Mars/Olympus')).toBeUndefined();
  });
});
