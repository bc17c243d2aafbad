/** SHA-256 of a text as lower-case hex (WebCrypto): content hashes of staged objects and change sets, and of sign-in tokens. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
