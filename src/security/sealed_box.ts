/**
 * NaCl sealed boxes (libsodium's crypto_box_seal): anonymous public-key encryption. The sender
 * uses a fresh key pair, so only the holder of the recipient's secret key can open the result.
 * Layout: ephemeral public key (32) || crypto_box(message, nonce = BLAKE2b-192(epk || pk)).
 */
import nacl from "tweetnacl";
import { blake2b } from "@noble/hashes/blake2b";

function sealNonce(ephemeralPublicKey: Uint8Array, recipientPublicKey: Uint8Array): Uint8Array {
  const input = new Uint8Array(ephemeralPublicKey.length + recipientPublicKey.length);
  input.set(ephemeralPublicKey);
  input.set(recipientPublicKey, ephemeralPublicKey.length);
  return blake2b(input, { dkLen: nacl.box.nonceLength });
}

export function seal(message: Uint8Array, recipientPublicKey: Uint8Array): Uint8Array {
  const ephemeral = nacl.box.keyPair();
  const boxed = nacl.box(message, sealNonce(ephemeral.publicKey, recipientPublicKey), recipientPublicKey, ephemeral.secretKey);
  const out = new Uint8Array(ephemeral.publicKey.length + boxed.length);
  out.set(ephemeral.publicKey);
  out.set(boxed, ephemeral.publicKey.length);
  return out;
}

/** The inverse of `seal`; null when the box was not sealed for this key pair or was altered. */
export function openSealed(sealed: Uint8Array, publicKey: Uint8Array, secretKey: Uint8Array): Uint8Array | null {
  const ephemeralPublicKey = sealed.subarray(0, nacl.box.publicKeyLength);
  const boxed = sealed.subarray(nacl.box.publicKeyLength);
  return nacl.box.open(boxed, sealNonce(ephemeralPublicKey, publicKey), ephemeralPublicKey, secretKey);
}
