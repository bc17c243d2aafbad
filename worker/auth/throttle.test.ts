import { describe, expect, it } from 'vitest';
import { addressKey, clientAddress, throttledError } from './throttle.ts';
import { localiseErrorBody } from '../../shared/i18n/error-text.ts';

describe('the address a sign-in is counted against', () => {
  it('counts an IPv6 client by its /64, however the address is written', () => {
    const key = addressKey('2001:db8:85a3:1:aaaa:bbbb:cccc:dddd');
    expect(key).toBe('2001:db8:85a3:1::/64');
    for (const same of ['2001:0db8:85a3:0001:0000:0000:0000:0001', '2001:DB8:85A3:1::1', '2001:db8:85a3:1:ffff::', '2001:db8:85a3:1::']) {
      expect(addressKey(same), same).toBe(key);
    }
    expect(addressKey('2001:db8:85a3:2::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('keeps IPv4 whole, reads an IPv4-mapped address as its IPv4, and keeps what it cannot parse as sent', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('0:0:0:0:0:ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('1::2::3')).toBe('1::2::3');
    expect(addressKey('not:an:address')).toBe('not:an:address');
  });

  it('reads CF-Connecting-IP only', () => {
    expect(clientAddress(new Headers({ 'cf-connecting-ip': ' 2001:db8:1:2:3:4:5:6 ' }))).toBe('2001:db8:1:2::/64');
    expect(clientAddress(new Headers({ 'x-forwarded-for': '203.0.113.7' }))).toBeNull();
  });
});

describe('the wait a 429 names', () => {
  it('words it with the right plural, in seconds under a minute and a half and whole minutes after', () => {
    const message = (seconds: number) => throttledError('sign-in attempts', seconds).message;
    expect(message(1)).toBe('Too many sign-in attempts. Try again in 1 second.');
    expect(message(2)).toBe('Too many sign-in attempts. Try again in 2 seconds.');
    expect(message(89)).toBe('Too many sign-in attempts. Try again in 89 seconds.');
    expect(message(90)).toBe('Too many sign-in attempts. Try again in 2 minutes.');
    expect(message(15 * 60)).toBe('Too many sign-in attempts. Try again in 15 minutes.');
  });

  it('tells a Chinese reader the wait too, and keeps Retry-After and the code', () => {
    const error = throttledError('sign-in attempts', 1);
    expect(error.headers).toEqual({ 'retry-after': '1' });
    const zh = localiseErrorBody(error.toBody(), 'zh');
    expect(zh).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 1 });
    expect(zh.message).toBe('尝试次数过多，请在 1 秒后再试。');
    expect(localiseErrorBody(throttledError('sign-in attempts', 600).toBody(), 'zh').message).toBe('尝试次数过多，请在 10 分钟后再试。');
  });
});
