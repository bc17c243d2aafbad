/**
 * A non-secret id for one login (one cookie): derived from the stored token hash with a fixed
 * label, so it can travel in the socket's identity headers and attachment without revealing the
 * token or the hash the database keeps. Sign-out closes the sockets carrying it.
 */
import { sha256Hex } from '../../shared/hash.ts';

export async function loginSessionId(tokenHash: string): Promise<string> {
  return (await sha256Hex(`bmad-login-session:v1:${tokenHash}`)).slice(0, 32);
}
