/**
 * Hostile input for the sweep over every route: path values, query strings and request bodies of
 * the wrong types, out-of-range numbers (1e308, -1, 2^64), NUL and control characters, invalid
 * UTF-8, bodies that lie about their Content-Encoding, and bodies past the size limit.
 */

/** Path parameter values, already percent-encoded. */
export const PATH_VALUES = [
  '1',
  '%25',
  '%00',
  '%01%1F%7F',
  '%C3%28',
  '%FF%FE',
  '-1',
  '1e308',
  '9223372036854775808',
  '18446744073709551616',
  '99999999999999999999999',
  '..%2F..',
  'abc',
];

/** Query strings naming the parameters routes read, each with hostile values. */
export const QUERIES = [
  '',
  'limit=1e308&max_id=18446744073709551616&since_id=-1&min_id=1e308&offset=-1&duration=1e308&expires_in=1e20',
  'limit=-1&offset=18446744073709551616&id[]=%00&types[]=%C3%28&exclude_types[]=%FF&q=%00%01&acct=%FF&account_id=-1',
  'q=a%00b&type=statuses&resolve=true&following=%00&exclude_unreviewed=%FF&local=%00&remote=1e308&only_media=-1&order=%01',
  'limit=abc&max_id=9223372036854775808&since_id=9999999999999999999&id=%C3%28&code=%00&redirect_uri=%FF&client_id=%00&response_type=code&scope=read%00&resource=acct:%00@%FF&page=-1&grouped_types[]=%00',
];

const HUGE = {
  limit: 1e308,
  duration: 1e308,
  expires_in: 1e20,
  scheduled_at: '+275760-09-13T00:00:00Z',
  offset: -1,
  id: 2 ** 64,
  dbm: 1e308,
  version: 1e308,
};

/** A body as sent: content type, optional Content-Encoding, bytes. */
export interface HostileBody {
  name: string;
  type?: string;
  encoding?: string;
  data: string | Buffer | FormData;
}

const json = (name: string, value: unknown): HostileBody => ({
  name,
  type: 'application/json',
  data: JSON.stringify(value),
});

function multipartWithFile(): FormData {
  const form = new FormData();
  form.append('status', 'x\u0000y');
  form.append('limit', '1e308');
  form.append('file', new Blob([Buffer.alloc(2048, 7)], { type: 'application/octet-stream' }), 'refused.bin');
  return form;
}

/** Every body the sweep sends to a route that takes one. */
export function hostileBodies(): HostileBody[] {
  return [
    json('wrong types', {
      status: [1],
      title: {},
      account_ids: 'x',
      id: [null],
      limit: '-5',
      visibility: 42,
      media_ids: { a: 1 },
      keywords_attributes: 'x',
      context: 7,
      poll: 'x',
      ids: 'x',
      ssid: 5,
      mode: [],
      acct: {},
    }),
    json('huge numbers', {
      ...HUGE,
      status: 'x',
      title: 't',
      context: ['home'],
      phrase: 'p',
      poll: { options: ['a', 'b'], expires_in: 1e308 },
      last_read_id: 2 ** 64,
      ids: [1e308, -1],
      home: { last_read_id: 1e308 },
    }),
    json('negative numbers', {
      limit: -1,
      duration: -1,
      expires_in: -1,
      dbm: -1,
      id: -1,
      ids: [-1],
      poll: { options: ['a', 'b'], expires_in: -1 },
    }),
    json('NUL and control characters', {
      status: 'a\u0000b\u0001',
      q: '\u0000',
      title: '\u0000\u001f',
      phrase: '\u0000',
      display_name: '\u0000',
      note: '\u0007',
      acct: '\u0000@\u0000',
      ssid: '\u0000',
      client_name: '\u0000',
      redirect_uris: '\u0000',
      grant_type: '\u0000',
      scheduled_at: '\u0000',
    }),
    json('far dates', {
      status: 'x',
      scheduled_at: '9999-99-99T99:99:99Z',
      expires_at: '-271821-04-20',
      starts_at: '1e308',
    }),
    json('a JSON array', [1e308, null, '\u0000']),
    json('a JSON number', 1e308),
    { name: 'malformed JSON', type: 'application/json', data: '{"status": "unterminated' },
    {
      name: 'invalid UTF-8',
      type: 'application/json',
      data: Buffer.concat([
        Buffer.from('{"status": "'),
        Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0x80]),
        Buffer.from('", "title": "'),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from('"}'),
      ]),
    },
    {
      name: 'form with hostile values',
      type: 'application/x-www-form-urlencoded',
      data: 'limit=1e308&duration=1e308&expires_in=1e20&status=%00&id[]=%C3%28&q=%00&scheduled_at=%FF&grant_type=%00',
    },
    { name: 'multipart with a file part', data: multipartWithFile() },
    { name: 'gzip that is not gzip', type: 'application/json', encoding: 'gzip', data: '{"status": "plain"}' },
    { name: 'deflate that is not deflate', type: 'application/json', encoding: 'deflate', data: '{"status": "plain"}' },
    { name: 'br that is not br', type: 'application/x-www-form-urlencoded', encoding: 'br', data: 'status=plain' },
    { name: 'an unknown encoding', type: 'application/json', encoding: 'zstd-nope', data: '{}' },
    {
      name: 'past the size limit',
      type: 'application/json',
      data: JSON.stringify({ status: 'x'.repeat(1024 * 1024 + 100) }),
    },
  ];
}
