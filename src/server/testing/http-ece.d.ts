/** The part of http_ece (no published types) the test push service uses: RFC 8188 decryption. */
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';

  interface DecryptParams {
    version: 'aes128gcm' | 'aesgcm';
    /** The receiver's key pair. */
    privateKey: ECDH;
    /** The 16-byte auth secret, base64url or bytes. */
    authSecret: string | Buffer;
  }
  const ece: { decrypt(buffer: Buffer, params: DecryptParams): Buffer };
  export default ece;
}
