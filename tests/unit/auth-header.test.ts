import { describe, expect, it } from 'vitest';
import { NotAuthenticated } from '../../shared/domain/errors';
import { parseBasicAuthorization } from '../../shared/middleware/auth';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function failure(header: string): NotAuthenticated {
  try {
    parseBasicAuthorization(header);
  } catch (error) {
    expect(error).toBeInstanceOf(NotAuthenticated);
    return error as NotAuthenticated;
  }
  throw new Error(`expected ${JSON.stringify(header)} to be refused`);
}

describe('parseBasicAuthorization', () => {
  it('reads username and password', () => {
    expect(parseBasicAuthorization(`Basic ${b64('admin:secret')}`)).toEqual({ username: 'admin', password: 'secret' });
  });

  it('splits at the first colon', () => {
    expect(parseBasicAuthorization(`Basic ${b64('user:pa:ss:word')}`)).toEqual({
      username: 'user',
      password: 'pa:ss:word',
    });
    expect(parseBasicAuthorization(`Basic ${b64(':')}`)).toEqual({ username: '', password: '' });
  });

  it('takes the scheme in any case and decodes UTF-8', () => {
    const utf8 = { username: 'zoë', password: 'pässwörd' };
    expect(parseBasicAuthorization(`basic ${b64(`${utf8.username}:${utf8.password}`)}`)).toEqual(utf8);
    expect(parseBasicAuthorization(`BASIC ${b64('a:b')}`)).toEqual({ username: 'a', password: 'b' });
  });

  it('no header or another scheme means "not provided" (undefined)', () => {
    expect(parseBasicAuthorization(undefined)).toBeUndefined();
    expect(parseBasicAuthorization('')).toBeUndefined();
    expect(parseBasicAuthorization('   ')).toBeUndefined();
    expect(parseBasicAuthorization('Bearer abc.def')).toBeUndefined();
    expect(parseBasicAuthorization(`Token ${b64('a:b')}`)).toBeUndefined();
    expect(parseBasicAuthorization(`Basicx ${b64('a:b')}`)).toBeUndefined();
  });

  it('"Basic" alone: no credentials provided', () => {
    for (const header of ['Basic', 'Basic ', 'basic   ']) {
      const error = failure(header);
      expect(error.status).toBe(401);
      expect(error.body).toEqual({ detail: 'Invalid basic header. No credentials provided.' });
      expect(error.headers).toEqual({ 'WWW-Authenticate': 'Basic realm="api"' });
    }
  });

  it('more than one token: credentials should not contain spaces', () => {
    const error = failure(`Basic ${b64('a:b')} extra`);
    expect(error.status).toBe(401);
    expect(error.body).toEqual({ detail: 'Invalid basic header. Credentials string should not contain spaces.' });
  });

  it('not base64: not correctly base64 encoded', () => {
    for (const header of ['Basic !!!!', 'Basic abc*', 'Basic a', 'Basic YWRtaW46c2VjcmV0=x', 'Basic YWRtaW46cGFzcw']) {
      expect(failure(header).body, header).toEqual({
        detail: 'Invalid basic header. Credentials not correctly base64 encoded.',
      });
    }
  });

  it('no colon after decoding: not correctly base64 encoded', () => {
    const error = failure(`Basic ${b64('adminsecret')}`);
    expect(error.status).toBe(401);
    expect(error.body).toEqual({ detail: 'Invalid basic header. Credentials not correctly base64 encoded.' });
  });
});
