// The two node:zlib calls inflate-entry.ts makes. The Worker's tsconfig has the Workers types, not
// Node's (they clash), and workerd implements node:zlib natively under the nodejs_compat flag.
declare module 'node:zlib' {
  /** Raw DEFLATE inflate; throws a RangeError as soon as the output passes `maxOutputLength`. */
  export function inflateRawSync(data: Uint8Array, options?: { maxOutputLength?: number }): Uint8Array;
  export function crc32(data: Uint8Array | string, value?: number): number;
}
