import { describe, expect, it } from 'vitest';
import { ianaTimeZone, ianaTimeZones } from './time-zone-names';

describe('IANA time zone names (issue 28)', () => {
  it.each([
    ['Asia/Kolkata', 'Asia/Kolkata'],
    ['asia/kolkata', 'Asia/Kolkata'],
    ['Asia/Calcutta', 'Asia/Kolkata'],
    ['Europe/Kiev', 'Europe/Kyiv'],
    ['Asia/Saigon', 'Asia/Ho_Chi_Minh'],
    ['America/Godthab', 'America/Nuuk'],
    ['europe/berlin', 'Europe/Berlin'],
    ['Europe/Amsterdam', 'Europe/Amsterdam'],
    ['US/Eastern', 'US/Eastern'],
    ['utc', 'UTC'],
    ['Etc/UTC', 'Etc/UTC'],
  ])('reads %s as %s', (given, name) => {
    expect(ianaTimeZone(given)).toBe(name);
  });

  it("offers the IANA names, not ICU's old ones, UTC first", () => {
    const zones = ianaTimeZones();
    expect(zones[0]).toBe('UTC');
    for (const zone of ['Asia/Kolkata', 'Europe/Kyiv', 'Asia/Ho_Chi_Minh', 'America/Nuuk', 'Europe/Berlin'])
      expect(zones).toContain(zone);
    for (const zone of ['Asia/Calcutta', 'Europe/Kiev', 'Asia/Saigon', 'America/Godthab'])
      expect(zones).not.toContain(zone);
    expect(new Set(zones).size).toBe(zones.length);
  });
});
