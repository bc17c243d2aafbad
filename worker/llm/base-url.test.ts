import { describe, expect, it } from 'vitest';
import { checkBaseUrl, privateAddressKind, providerEndpoint } from './base-url.ts';

describe('base URL safety', () => {
  const refused = [
    'http://127.0.0.1:8080/v1',
    'http://127.1/v1',
    'http://2130706433/v1',
    'http://0x7f.0.0.1/v1',
    'http://10.1.2.3/v1',
    'http://172.16.0.1/v1',
    'http://172.31.255.255/v1',
    'http://192.168.1.10/v1',
    'http://169.254.169.254/latest/meta-data',
    'http://0.0.0.0:11434/v1',
    'http://[::1]:8080/v1',
    'http://[::ffff:127.0.0.1]/v1',
    'http://[::ffff:a9fe:a9fe]/v1',
    'http://[fd00:ec2::254]/v1',
    'http://[fc00::1]/v1',
    'http://[fe80::1]/v1',
    'http://localhost:11434/v1',
    'http://LOCALHOST./v1',
    'http://ollama.localhost/v1',
    'http://metadata.google.internal/computeMetadata/v1',
    'http://printer.local/v1',
    'http://ollama:11434/v1',
  ];
  it.each(refused)('refuses %s unless private addresses are allowed', (url) => {
    const check = checkBaseUrl(url, { allowPrivate: false });
    expect(check.type).toBe('private_not_allowed');
    expect(check.type === 'private_not_allowed' && check.hint).toMatch(/LLM_ALLOW_PRIVATE_BASE_URLS/);
    expect(checkBaseUrl(url, { allowPrivate: true }).type).toBe('ok');
  });

  // URL() rewrites every IPv4 spelling to dotted decimal and compresses IPv6 before the check sees the
  // host; each case names the address it becomes.
  it.each([
    ['http://2130706433/v1', '127.0.0.1', /loopback/],
    ['http://0x7f.1/v1', '127.0.0.1', /loopback/],
    ['http://017700000001/v1', '127.0.0.1', /loopback/],
    ['http://0177.0.0.1/v1', '127.0.0.1', /loopback/],
    ['http://0.1.2.3/v1', '0.1.2.3', /unspecified/],
    ['http://100.64.0.1/v1', '100.64.0.1', /carrier-grade NAT/],
    ['http://100.127.255.254/v1', '100.127.255.254', /carrier-grade NAT/],
    ['http://169.254.0.1/v1', '169.254.0.1', /link-local/],
    ['http://4294967295/v1', '255.255.255.255', /broadcast/],
    ['http://224.0.0.1/v1', '224.0.0.1', /multicast/],
    ['http://240.0.0.1/v1', '240.0.0.1', /reserved/],
    ['http://192.0.2.10/v1', '192.0.2.10', /reserved/],
    ['http://198.18.0.1/v1', '198.18.0.1', /reserved/],
    ['http://[::1]/v1', '[::1]', /loopback/],
    ['http://[::]/v1', '[::]', /unspecified/],
    ['http://[::ffff:127.0.0.1]/v1', '[::ffff:7f00:1]', /loopback/],
    ['http://[::ffff:10.0.0.1]/v1', '[::ffff:a00:1]', /private network/],
    ['http://[::ffff:0:169.254.169.254]/v1', '[::ffff:0:a9fe:a9fe]', /link-local/],
    ['http://[::127.0.0.1]/v1', '[::7f00:1]', /loopback/],
    ['http://[64:ff9b::10.0.0.1]/v1', '[64:ff9b::a00:1]', /private network/],
    ['http://[64:ff9b:1::1]/v1', '[64:ff9b:1::1]', /private network/],
    ['http://[2002:c0a8:101::1]/v1', '[2002:c0a8:101::1]', /private network/],
    ['http://[fc00::1]/v1', '[fc00::1]', /unique local/],
    ['http://[fdff:ffff::1]/v1', '[fdff:ffff::1]', /unique local/],
    ['http://[fe80::1]/v1', '[fe80::1]', /link-local/],
    ['http://[febf::1]/v1', '[febf::1]', /link-local/],
    ['http://[fec0::1]/v1', '[fec0::1]', /site-local/],
    ['http://[ff02::1]/v1', '[ff02::1]', /multicast/],
    ['http://[100::1]/v1', '[100::1]', /reserved/],
    ['http://[2001:db8::1]/v1', '[2001:db8::1]', /reserved/],
  ])('reads %s as %s and refuses it', (url, host, kind) => {
    const check = checkBaseUrl(url, { allowPrivate: false });
    expect(check).toMatchObject({ type: 'private_not_allowed', host });
    expect(check.type === 'private_not_allowed' && check.message).toMatch(kind);
  });

  it.each([
    'https://api.openai.com/v1',
    'https://api.deepseek.com',
    'https://8.8.8.8/v1',
    'http://[2001:4860:4860::8888]/v1',
    'https://172.32.0.1/v1',
    'https://100.128.0.1/v1',
    'https://100.63.255.255/v1',
    'https://169.253.0.1/v1',
    'http://[::ffff:8.8.8.8]/v1',
    'http://[64:ff9b::8.8.8.8]/v1',
    'http://[2002:808:808::1]/v1',
    'http://[fe00::1]/v1',
  ])(
    'accepts the public address %s',
    (url) => {
      expect(checkBaseUrl(url, { allowPrivate: false }).type).toBe('ok');
    },
  );

  it('accepts only http(s) without credentials, query or fragment, and normalises the trailing slash', () => {
    for (const url of ['ftp://api.example.com/v1', 'file:///etc/passwd', 'https://user:pw@api.example.com/v1', 'https://api.example.com/v1?x=1', 'https://api.example.com/v1#a', 'not a url']) {
      expect(checkBaseUrl(url, { allowPrivate: true }).type).toBe('invalid');
    }
    expect(checkBaseUrl(' https://API.example.com/v1/ ', { allowPrivate: false })).toEqual({ type: 'ok', url: 'https://api.example.com/v1' });
    expect(privateAddressKind('api.openai.com')).toBeNull();
  });

  it('accepts Azure\'s ?api-version=… (and no other query), and the SDK gets it as a default query with the api-key header', () => {
    const azure = 'https://contoso.openai.azure.com/openai/deployments/gpt-4o-mini/?api-version=2024-10-21';
    expect(checkBaseUrl(azure, { allowPrivate: false })).toEqual({
      type: 'ok',
      url: 'https://contoso.openai.azure.com/openai/deployments/gpt-4o-mini?api-version=2024-10-21',
    });
    for (const url of [`${azure}&x=1`, 'https://contoso.openai.azure.com/openai/deployments/d?api-version=a%26b', 'https://api.example.com/v1?api-version=1#x']) {
      expect(checkBaseUrl(url, { allowPrivate: true }).type).toBe('invalid');
    }
    expect(providerEndpoint('https://contoso.openai.azure.com/openai/deployments/gpt-4o-mini?api-version=2024-10-21')).toEqual({
      baseURL: 'https://contoso.openai.azure.com/openai/deployments/gpt-4o-mini',
      defaultQuery: { 'api-version': '2024-10-21' },
      keyHeader: 'api-key',
    });
    expect(providerEndpoint('https://api.openai.com/v1')).toEqual({ baseURL: 'https://api.openai.com/v1', defaultQuery: undefined, keyHeader: 'authorization' });
  });
});
