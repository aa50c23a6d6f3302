declare module '@peertube/http-signature' {
  import type { ClientRequest, IncomingMessage } from 'node:http';
  export interface SignOptions {
    keyId: string;
    key: string | Buffer;
    algorithm?: string;
    headers?: string[];
    authorizationHeaderName?: string;
  }
  export interface ParseOptions {
    clockSkew?: number;
    headers?: string[];
    algorithms?: string[];
    authorizationHeaderName?: string;
    strict?: boolean;
  }
  export interface ParsedSignature {
    scheme: string;
    params: { keyId: string; algorithm: string; headers: string[]; signature: string };
    signingString: string;
    algorithm: string;
    keyId: string;
  }
  export function signRequest(request: ClientRequest, options: SignOptions): boolean;
  export function parseRequest(
    request:
      | IncomingMessage
      | { method: string; url: string; httpVersion: string; headers: Record<string, string | string[] | undefined> },
    options?: ParseOptions,
  ): ParsedSignature;
  export function verifySignature(parsed: ParsedSignature, publicKeyPem: string): boolean;
  const httpSignature: {
    signRequest: typeof signRequest;
    parseRequest: typeof parseRequest;
    verifySignature: typeof verifySignature;
  };
  export default httpSignature;
}
