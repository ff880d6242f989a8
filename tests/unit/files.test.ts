import { describe, expect, it } from 'vitest';
import { MAX_FILENAME_LENGTH, isHeaderSafe, mimeTypeOf, sanitiseFilename } from '../../shared/domain/files';

describe('sanitiseFilename', () => {
  it('drops bidirectional controls, so a name shows as what it is (issue 13)', () => {
    expect(sanitiseFilename('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(sanitiseFilename('\u2066a\u2067b\u2068c\u2069\u200E\u200F\u061Cd\u202A\u202B\u202C\u202D.txt')).toBe(
      'abcd.txt',
    );
  });

  it('keeps ordinary names', () => {
    expect(sanitiseFilename('hello.txt')).toBe('hello.txt');
    expect(sanitiseFilename('rapport final (v2).pdf')).toBe('rapport final (v2).pdf');
    expect(sanitiseFilename('ünïcødé.txt')).toBe('ünïcødé.txt');
  });

  it('keeps only the last path segment', () => {
    expect(sanitiseFilename('../../etc/passwd')).toBe('passwd');
    expect(sanitiseFilename('C:\\Users\\me\\notes.txt')).toBe('notes.txt');
    expect(sanitiseFilename('/abs/path/a.png')).toBe('a.png');
  });

  it('removes control characters and trims', () => {
    expect(sanitiseFilename('a\u0000b\r\nc\u001f\u007f\u0085.txt')).toBe('abc.txt');
    expect(sanitiseFilename('  spaced.txt  ')).toBe('spaced.txt');
  });

  it('falls back to "file" for empty or dot names', () => {
    for (const raw of [undefined, '', '   ', '.', '..', 'dir/', '\u0000', 'a/..']) {
      expect(sanitiseFilename(raw), String(raw)).toBe('file');
    }
  });

  it('caps the length at 255 characters, keeping the extension', () => {
    expect(MAX_FILENAME_LENGTH).toBe(255);
    const long = `${'a'.repeat(300)}.pdf`;
    const name = sanitiseFilename(long);
    expect([...name].length).toBe(255);
    expect(name.endsWith('.pdf')).toBe(true);
    expect(name.startsWith('aaaa')).toBe(true);

    const unicode = `${'é'.repeat(300)}.txt`;
    const short = sanitiseFilename(unicode);
    expect([...short].length).toBe(255);
    expect(short.endsWith('.txt')).toBe(true);

    const exactly = `${'b'.repeat(251)}.txt`;
    expect(sanitiseFilename(exactly)).toBe(exactly);
  });

  it('a very long extension is cut too', () => {
    const name = sanitiseFilename(`a.${'x'.repeat(400)}`);
    expect([...name].length).toBe(255);
  });
});

describe('mimeTypeOf', () => {
  it('uses the part type when it names one', () => {
    expect(mimeTypeOf('a.txt', 'text/markdown')).toBe('text/markdown');
    // An explicit application/octet-stream is the part's own type too (as upstream's).
    expect(mimeTypeOf('A.PNG', 'application/octet-stream')).toBe('application/octet-stream');
  });
  it('guesses from the name otherwise', () => {
    expect(mimeTypeOf('a.txt', undefined)).toBe('text/plain');
    expect(mimeTypeOf('A.PNG', undefined)).toBe('image/png');
    expect(mimeTypeOf('notes.docx', undefined)).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(mimeTypeOf('noext', undefined)).toBe('application/octet-stream');
    expect(mimeTypeOf('x.unknownext', undefined)).toBe('application/octet-stream');
  });
});

describe('content types that cannot be a header', () => {
  it('a part type with CR, LF or other controls is ignored: the name decides (it failed the upload with a 503)', () => {
    expect(mimeTypeOf('a.txt', 'text/plain\r\nX-Injected: 1')).toBe('text/plain');
    expect(mimeTypeOf('a.bin', 'image/png\u0000')).toBe('application/octet-stream');
    expect(mimeTypeOf('a.txt', 'image/png')).toBe('image/png');
    expect(isHeaderSafe('text/plain; charset=utf-8')).toBe(true);
  });
});
