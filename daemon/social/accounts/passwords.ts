/** Passwords hashed with scrypt (memory-hard), salted, parameters stored beside the hash. */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { PasswordHasher } from './password-hasher.js';

const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

export class Passwords {
  constructor(private readonly hasher: PasswordHasher) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await this.hasher.derive(password, salt, { n: N, r: R, p: P, keyLength: KEY_LENGTH });
    return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  /**
   * Hashes and refuses: for a login that names no account (or a disabled one), so the answer
   * takes as long as a real check and does not tell whether the account exists (Devise's
   * paranoid mode, which Mastodon uses, does the same).
   */
  async refuse(password: string): Promise<false> {
    await this.hasher.derive(password, randomBytes(16), { n: N, r: R, p: P, keyLength: KEY_LENGTH });
    return false;
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const [scheme, n, r, p, salt, hash] = stored.split('$');
    if (scheme !== 'scrypt' || !salt || !hash) return false;
    const expected = Buffer.from(hash, 'base64');
    const key = await this.hasher.derive(password, Buffer.from(salt, 'base64'), {
      n: Number(n),
      r: Number(r),
      p: Number(p),
      keyLength: expected.length || KEY_LENGTH,
    });
    return key.length === expected.length && timingSafeEqual(key, expected);
  }
}
