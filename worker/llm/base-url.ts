/**
 * Which LLM base URLs the Worker may call. Used by the profile routes (PUT, test) and by
 * resolveEffectiveProfile, so a URL saved before an operator tightened the rule stops working too.
 *
 * Only http(s) URLs without credentials, query or fragment (the OpenAI SDK appends its paths to
 * the base URL, so a query would end up in the middle). Addresses on private, loopback,
 * link-local, unique-local or metadata networks, and names that only a local resolver knows
 * (`localhost`, `*.localhost`, `*.internal`, `*.local`, dotless names), are refused unless
 * `LLM_ALLOW_PRIVATE_BASE_URLS` is "true" (local development, self-hosted models).
 *
 * Limit: a public DNS name that resolves to a private address is not caught here; Workers have
 * no resolver API. The check is about what the user typed: it stops the Worker being pointed at
 * the metadata service or an internal host by name or literal address.
 */
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
 * dotted decimal whatever the input form, IPv6 in brackets) is, or null for a public one.
 */
export function privateAddressKind(hostname: string): string | null {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[') && host.endsWith(']')) {
    const groups = parseIpv6(host.slice(1, -1));
    return groups === null ? 'an address that could not be read' : ipv6Kind(groups);
  }
  const v4 = parseIpv4(host);
  if (v4 !== null) return ipv4Kind(v4);
  if (host === 'localhost' || host.endsWith('.localhost')) return 'the local machine';
  for (const suffix of ['internal', 'local', 'localdomain', 'home.arpa', 'lan', 'intranet', 'corp']) {
    if (host === suffix || host.endsWith(`.${suffix}`)) return 'a name on an internal network';
  }
  // A name without a dot only resolves through a local search domain (e.g. `metadata`, a
  // container name): never a public server.
  if (!host.includes('.')) return 'a name on an internal network';
  return null;
}

function parseIpv4(host: string): number[] | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!match) return null;
  const octets = match.slice(1).map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

function ipv4Kind([a, b]: number[]): string | null {
  if (a === undefined || b === undefined) return null;
  if (a === 127) return 'the local machine (loopback)';
  if (a === 0) return 'an unspecified address (0.0.0.0/8)';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'a private network';
  if (a === 100 && b >= 64 && b <= 127) return 'a carrier-grade NAT network';
  if (a === 169 && b === 254) return 'a link-local address (this includes the cloud metadata service)';
  if (a >= 224) return 'a multicast or reserved address';
  return null;
}

/** Eight 16-bit groups, or null. Accepts `::` compression and a dotted IPv4 tail. */
function parseIpv6(text: string): number[] | null {
  if (text.includes('%')) return null; // zone ids are not valid in URLs
  let body = text;
  const lastColon = body.lastIndexOf(':');
  if (body.slice(lastColon + 1).includes('.')) {
    // Rewrite a dotted IPv4 tail as two hex groups.
    const v4 = parseIpv4(body.slice(lastColon + 1));
    if (v4 === null) return null;
    const [a = 0, b = 0, c = 0, d = 0] = v4;
    body = `${body.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const group of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(group)) return null;
      out.push(parseInt(group, 16));
    }
    return out;
  };
  const head = parse(halves[0] ?? '');
  const rest = halves.length === 2 ? parse(halves[1] ?? '') : [];
  if (head === null || rest === null) return null;
  const known = head.length + rest.length;
  if (halves.length === 2) {
    if (known > 7) return null;
    return [...head, ...new Array<number>(8 - known).fill(0), ...rest];
  }
  return known === 8 ? head : null;
}

function embeddedIpv4(hi: number, lo: number): number[] {
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

function ipv6Kind(g: number[]): string | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 0) return 'an unspecified address (::)';
  if (upperZero && g5 === 0 && g6 === 0 && g7 === 1) return 'the local machine (loopback)';
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible form (::a.b.c.d).
  if (upperZero && (g5 === 0xffff || g5 === 0)) return ipv4Kind(embeddedIpv4(g6, g7));
  // NAT64 (64:ff9b::a.b.c.d) reaches the embedded IPv4 address.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4Kind(embeddedIpv4(g6, g7));
  // 6to4 (2002:aabb:ccdd::) routes to the embedded IPv4 address.
  if (g0 === 0x2002) return ipv4Kind(embeddedIpv4(g1, g2));
  if ((g0 & 0xfe00) === 0xfc00) return 'a private network (unique local address)';
  if ((g0 & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((g0 & 0xffc0) === 0xfec0) return 'a site-local address';
  if ((g0 & 0xff00) === 0xff00) return 'a multicast address';
  return null;
}
