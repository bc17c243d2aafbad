/**
 * Which LLM base URLs the Worker may call. Used by the profile routes (PUT, test) and by
 * resolveEffectiveProfile, so a URL saved before an operator tightened the rule stops working too.
 *
 * Only http(s) URLs without credentials, query or fragment (the OpenAI SDK appends its paths to
 * the base URL, so a query would end up in the middle). Addresses on private, loopback,
 * link-local, unique-local, carrier-grade NAT, metadata, multicast or reserved ranges (ipaddr.js
 * names the ranges; IPv6 forms that embed an IPv4 address are judged by that address), and names
 * that only a local resolver knows (`localhost`, `*.localhost`, `*.internal`, `*.local`, dotless
 * names), are refused unless
 * `LLM_ALLOW_PRIVATE_BASE_URLS` is "true" (local development, self-hosted models).
 *
 * Limit: a public DNS name that resolves to a private address is not caught here; Workers have
 * no resolver API. The check is about what the user typed: it stops the Worker being pointed at
 * the metadata service or an internal host by name or literal address.
 */
import ipaddr from 'ipaddr.js';
import type { LlmVars } from './llm-vars.ts';

export type BaseUrlCheck =
  | { type: 'ok'; url: string }
  | { type: 'invalid'; message: string; hint: string }
  | { type: 'private_not_allowed'; host: string; message: string; hint: string };

export function allowPrivateBaseUrls(env: Pick<LlmVars, 'LLM_ALLOW_PRIVATE_BASE_URLS'>): boolean {
  return env.LLM_ALLOW_PRIVATE_BASE_URLS?.trim().toLowerCase() === 'true';
}

const PRIVATE_HINT =
  'Use the address your provider publishes. To use a model on your own network, an operator sets LLM_ALLOW_PRIVATE_BASE_URLS = "true" for this deployment.';

export function checkBaseUrl(raw: string, options: { allowPrivate: boolean }): BaseUrlCheck {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return {
      type: 'invalid',
      message: 'The base URL is not a valid web address.',
      hint: 'Write it in full, with http:// or https://, e.g. https://api.openai.com/v1.',
    };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return {
      type: 'invalid',
      message: `The base URL must start with https:// or http://, not ${url.protocol}//.`,
      hint: 'Use the HTTP address of the model server, e.g. https://api.openai.com/v1.',
    };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      type: 'invalid',
      message: 'The base URL must not contain a user name or password.',
      hint: 'Remove the "user:password@" part and put the key in the API key field.',
    };
  }
  const apiVersion = azureApiVersion(url);
  if ((url.search !== '' && apiVersion === null) || url.hash !== '') {
    return {
      type: 'invalid',
      message: 'The base URL must not contain a "?…" query (other than Azure\'s ?api-version=…) or a "#…" fragment.',
      hint: 'Use the address up to the path, e.g. https://api.openai.com/v1; the client adds /chat/completions itself.',
    };
  }
  const host = url.hostname;
  const kind = privateAddressKind(host);
  if (kind !== null && !options.allowPrivate) {
    return {
      type: 'private_not_allowed',
      host,
      message: `The base URL points at ${kind} (${host}), which this server does not call.`,
      hint: PRIVATE_HINT,
    };
  }
  const query = apiVersion === null ? '' : `?api-version=${apiVersion}`;
  return { type: 'ok', url: `${url.origin}${url.pathname.replace(/\/+$/, '')}${query}` };
}

/** `?api-version=2024-10-21` and nothing else in the query, as Azure OpenAI needs; else null. */
function azureApiVersion(url: URL): string | null {
  const keys = [...url.searchParams.keys()];
  const version = url.searchParams.get('api-version');
  return keys.length === 1 && version !== null && /^[A-Za-z0-9.-]{1,40}$/.test(version) ? version : null;
}

/** What the openai SDK needs to call a base URL: the URL without its query, the query to add to every request, and the key's header. */
export interface ProviderEndpoint {
  baseURL: string;
  defaultQuery: Record<string, string> | undefined;
  /** Azure OpenAI reads the key from `api-key`; everyone else from `Authorization: Bearer`. */
  keyHeader: 'authorization' | 'api-key';
}

/**
 * Azure-style base URLs (`https://<res>.openai.azure.com/openai/deployments/<d>?api-version=…`): the
 * SDK appends its paths to the base URL, so the api-version travels as a default query instead.
 */
export function providerEndpoint(baseUrl: string): ProviderEndpoint {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { baseURL: baseUrl.replace(/\/+$/, ''), defaultQuery: undefined, keyHeader: 'authorization' };
  }
  const apiVersion = azureApiVersion(url);
  const azureHost = /\.(openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/i.test(url.hostname);
  const azure = azureHost || (apiVersion !== null && /\/openai\/deployments\//.test(url.pathname));
  return {
    baseURL: `${url.origin}${url.pathname.replace(/\/+$/, '')}`,
    defaultQuery: apiVersion === null ? undefined : { 'api-version': apiVersion },
    keyHeader: azure ? 'api-key' : 'authorization',
  };
}

/**
 * The fetch to give the openai SDK (`createChatProvider(profile, {fetch: fetchWithoutRedirects})`):
 * redirects are not followed, because checkBaseUrl judged the address that was typed and a
 * redirect could lead anywhere, a private address included. A 3xx becomes a provider error.
 */
export const fetchWithoutRedirects = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
  fetch(input, { ...init, redirect: 'manual' });

/** Scheme, host and port: the server a key is sent to. */
export function baseUrlOrigin(baseUrl: string): string | null {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return null;
  }
}

/**
 * What kind of non-public address `hostname` (as `URL.hostname` gives it: lower case, IPv4 in
 * dotted decimal whatever the input form — `2130706433`, `0x7f.1` and `0177.0.0.1` all arrive as
 * `127.0.0.1` — IPv6 compressed in brackets) is, or null for a public one.
 */
export function privateAddressKind(hostname: string): string | null {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[') && host.endsWith(']')) {
    const text = host.slice(1, -1);
    // Zone ids (`%eth0`) are not valid in URLs; ipaddr.js would accept them.
    if (text.includes('%') || !ipaddr.IPv6.isValid(text)) return 'an address that could not be read';
    return ipv6Kind(ipaddr.IPv6.parse(text));
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return ipv4Kind(ipaddr.IPv4.parse(host));
  if (host === 'localhost' || host.endsWith('.localhost')) return 'the local machine';
  for (const suffix of ['internal', 'local', 'localdomain', 'home.arpa', 'lan', 'intranet', 'corp']) {
    if (host === suffix || host.endsWith(`.${suffix}`)) return 'a name on an internal network';
  }
  // A name without a dot only resolves through a local search domain (e.g. `metadata`, a
  // container name): never a public server.
  if (!host.includes('.')) return 'a name on an internal network';
  return null;
}

/** ipaddr.js's IPv4 range names; `unicast`, `as112` and `amt` are public. */
const IPV4_KINDS: Record<string, string> = {
  unspecified: 'an unspecified address (0.0.0.0/8)',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address (this includes the cloud metadata service)',
  loopback: 'the local machine (loopback)',
  carrierGradeNat: 'a carrier-grade NAT network',
  private: 'a private network',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a reserved or documentation address',
};

function ipv4Kind(address: ipaddr.IPv4): string | null {
  return IPV4_KINDS[address.range()] ?? null;
}

/** ipaddr.js's IPv6 range names that are never a public server; other names are handled below. */
const IPV6_KINDS: Record<string, string> = {
  unspecified: 'an unspecified address (::)',
  loopback: 'the local machine (loopback)',
  uniqueLocal: 'a private network (unique local address)',
  linkLocal: 'a link-local address',
  deprecatedSiteLocal: 'a site-local address',
  multicast: 'a multicast address',
};

/** Ranges a public server may have: global unicast, Teredo, and the AS112 / AMT anycast services. */
const PUBLIC_IPV6_RANGES = new Set(['unicast', 'teredo', 'as112v6', 'amt']);

/** The IPv4 address in the low 32 bits of an IPv6 address. */
function low32(parts: number[]): ipaddr.IPv4 {
  const hi = parts[6] ?? 0;
  const lo = parts[7] ?? 0;
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function ipv6Kind(address: ipaddr.IPv6): string | null {
  const range = address.range();
  const parts = address.parts;
  const known = IPV6_KINDS[range];
  if (known !== undefined) return known;
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d)
  // reach the embedded IPv4 address; so does the deprecated IPv4-compatible form (::a.b.c.d).
  if (range === 'ipv4Mapped' || range === 'rfc6145') return ipv4Kind(low32(parts));
  if (range === 'rfc6052') {
    // 64:ff9b:1::/48 is for NAT64 inside one network (RFC 8215), whatever the address after it.
    return parts[2] === 0 ? ipv4Kind(low32(parts)) : 'a private network (local-use NAT64)';
  }
  if (range === 'unicast' && parts.slice(0, 6).every((p) => p === 0)) return ipv4Kind(low32(parts));
  // 6to4 (2002:aabb:ccdd::) routes to the IPv4 address in its second and third groups.
  if (range === '6to4') {
    const [, hi = 0, lo = 0] = parts;
    return ipv4Kind(new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]));
  }
  return PUBLIC_IPV6_RANGES.has(range) ? null : 'a reserved or documentation address';
}
