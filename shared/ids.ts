/** Server-minted ids: a readable prefix and 128 random bits (base32, lower case). */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

export function randomToken(bytes = 16): string {
  const data = crypto.getRandomValues(new Uint8Array(bytes));
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of data) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

export type IdPrefix = 'usr' | 'prj' | 'hist' | 'as' | 'cs' | 'aud' | 'thr' | 'cmt' | 'turn' | 'crq' | 'mnt' | 'undo' | 'inv';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken()}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
