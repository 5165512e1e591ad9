import crypto from 'node:crypto';

/**
 * A software passkey authenticator for API tests: it answers WebAuthn registration and sign-in
 * options the way a browser and a platform authenticator would, with an ES256 key from node:crypto
 * and attestation 'none' (W3C WebAuthn §6.1, §6.5; the attestation object and COSE key are CBOR,
 * RFC 8949, encoded by the few lines below). Real signatures, so @simplewebauthn/server checks them
 * exactly as it checks a browser's.
 */

type Cbor = number | string | Uint8Array | Cbor[] | Map<number | string, Cbor> | { [key: string]: Cbor };

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) {
    const out = Buffer.alloc(3);
    out[0] = (major << 5) | 25;
    out.writeUInt16BE(length, 1);
    return out;
  }
  const out = Buffer.alloc(5);
  out[0] = (major << 5) | 26;
  out.writeUInt32BE(length, 1);
  return out;
}

/** Just enough CBOR for attestation objects and COSE keys: integers, text, bytes, arrays, maps. */
export function encodeCbor(value: Cbor): Buffer {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new Error('only integers');
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(encodeCbor)]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([
    head(5, entries.length),
    ...entries.flatMap(([key, item]) => [encodeCbor(key), encodeCbor(item)]),
  ]);
}

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string): Buffer => crypto.createHash('sha256').update(data).digest();

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_ATTESTED_DATA = 0x40;

/** The parts of the server's options this authenticator reads. */
export interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  excludeCredentials?: { id: string }[];
}
export interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export interface StoredCredential {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: crypto.KeyObject;
  counter: number;
}

export interface SoftwareAuthenticatorOptions {
  /** The page's origin as the browser would report it. */
  origin: string;
  /** Whether the person is verified (PIN, biometrics); a passkey sign-in requires it. */
  userVerified?: boolean;
  /** Counters step by this much per use; 0 models authenticators that keep none. */
  counterStep?: number;
}

export function createSoftwareAuthenticator({
  origin,
  userVerified = true,
  counterStep = 1,
}: SoftwareAuthenticatorOptions) {
  const credentials: StoredCredential[] = [];
  const flags = (extra = 0) => FLAG_USER_PRESENT | (userVerified ? FLAG_USER_VERIFIED : 0) | extra;
  const clientData = (type: string, challenge: string) =>
    Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

  return {
    credentials,

    /** What startRegistration() resolves with: a new ES256 credential, attestation 'none'. */
    register(options: CreationOptions) {
      const rpId = options.rp.id ?? new URL(origin).hostname;
      const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = publicKey.export({ format: 'jwk' });
      const coseKey = new Map<number, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]);
      const credentialId = crypto.randomBytes(16);
      const counter = counterStep;
      const authenticatorData = Buffer.concat([
        sha256(rpId),
        Buffer.from([flags(FLAG_ATTESTED_DATA)]),
        uint32(counter),
        Buffer.alloc(16), // AAGUID: none
        uint16(credentialId.length),
        credentialId,
        encodeCbor(coseKey),
      ]);
      const stored: StoredCredential = {
        id: b64url(credentialId),
        rpId,
        userHandle: options.user.id,
        privateKey,
        counter,
      };
      credentials.push(stored);
      return {
        credential: stored,
        response: {
          id: stored.id,
          rawId: stored.id,
          type: 'public-key' as const,
          response: {
            clientDataJSON: b64url(clientData('webauthn.create', options.challenge)),
            attestationObject: b64url(encodeCbor({ fmt: 'none', attStmt: {}, authData: authenticatorData })),
            transports: ['internal'],
          },
          clientExtensionResults: {},
          authenticatorAttachment: 'platform' as const,
        },
      };
    },

    /** What startAuthentication() resolves with, signed by the given (or the only) credential. */
    authenticate(options: RequestOptions, credential: StoredCredential | undefined = credentials.at(-1)) {
      if (!credential) throw new Error('the authenticator holds no passkey');
      credential.counter += counterStep;
      const authenticatorData = Buffer.concat([
        sha256(options.rpId ?? credential.rpId),
        Buffer.from([flags()]),
        uint32(credential.counter),
      ]);
      const clientDataJSON = clientData('webauthn.get', options.challenge);
      const signature = crypto.sign(
        'sha256',
        Buffer.concat([authenticatorData, sha256(clientDataJSON)]),
        credential.privateKey,
      );
      return {
        id: credential.id,
        rawId: credential.id,
        type: 'public-key' as const,
        response: {
          clientDataJSON: b64url(clientDataJSON),
          authenticatorData: b64url(authenticatorData),
          signature: b64url(signature),
          userHandle: credential.userHandle,
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform' as const,
      };
    },
  };
}

export type SoftwareAuthenticator = ReturnType<typeof createSoftwareAuthenticator>;

function uint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out;
}

function uint16(value: number): Buffer {
  const out = Buffer.alloc(2);
  out.writeUInt16BE(value);
  return out;
}
