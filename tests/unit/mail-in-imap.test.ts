import { describe, expect, it } from 'vitest';
import { ImapSettingsError, isLoopback, parseImapUrl } from '../../shared/domain/mail-in-imap';

describe('HELPDESK_IMAP_URL', () => {
  it('reads a Gmail mailbox over TLS, moving processed mail by default', () => {
    expect(parseImapUrl('imaps://support%40example.com@imap.gmail.com/INBOX')).toEqual({
      host: 'imap.gmail.com',
      port: 993,
      tls: true,
      user: 'support@example.com',
      mailbox: 'INBOX',
      recipient: 'support@example.com',
      after: 'move',
      processed: 'Processed',
      auth: 'password',
    });
  });

  it('takes an unencoded @ in the user, a port, a folder, and the settings after ?', () => {
    expect(
      parseImapUrl(
        'imaps://help@contoso.onmicrosoft.com@outlook.office365.com:993/Help%20Desk?recipient=Help@Contoso.com&after=delete',
      ),
    ).toMatchObject({
      user: 'help@contoso.onmicrosoft.com',
      mailbox: 'Help Desk',
      recipient: 'help@contoso.com',
      after: 'delete',
    });
  });

  it('allows plain text (imap://) to loopback only', () => {
    expect(parseImapUrl('imap://me%40localhost@127.0.0.1:1143/INBOX')).toMatchObject({ tls: false, port: 1143 });
    expect(parseImapUrl('imap://me%40localhost@[::1]/INBOX')).toMatchObject({ tls: false, port: 143 });
    expect(() => parseImapUrl('imap://support%40example.com@imap.example.com/INBOX')).toThrow(
      /plain text.*only a loopback address/,
    );
  });

  it.each([
    ['not a URL', /must be a URL/],
    ['https://imap.example.com/INBOX', /must start with imaps:\/\//],
    ['imaps://imap.example.com/INBOX', /names no user/],
    ['imaps://a%40example.com:secret@imap.example.com/INBOX', /must not hold the password/],
    ['imaps://a%40example.com@imap.example.com/INBOX?after=archive', /after= must be one of move, seen, delete/],
    ['imaps://a%40example.com@imap.example.com/INBOX?folder=x', /unknown setting "folder"/],
    ['imaps://support@imap.example.com/INBOX', /needs recipient=<address>/],
    ['imaps://a%40example.com@imap.example.com/Done?processed=Done', /moves processed mail to the folder it reads/],
  ])('refuses %s, saying why', (url, reason) => {
    expect(() => parseImapUrl(url)).toThrow(ImapSettingsError);
    expect(() => parseImapUrl(url)).toThrow(reason);
  });

  it('knows loopback when it sees it', () => {
    expect(['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'].every(isLoopback)).toBe(true);
    expect(['10.0.0.1', '128.0.0.1', 'localhost.example.com', '::2', 'imap.gmail.com'].some(isLoopback)).toBe(false);
  });
});
