import { describe, expect, it } from 'vitest';
import { URL_PATTERN } from '../../shared/domain/custom-fields';

describe('custom field URL pattern', () => {
  it('is composed into exactly the pattern it was as one literal', () => {
    const literal = [
      String.raw`^(?:https?|ftps?):\/\/(?:[^\s:@/]+(?::[^\s@/]*)?@)?(?:\[[0-9a-f:.]+\]|`,
      String.raw`[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?`,
      String.raw`(?:\.[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?)*\.?)`,
      String.raw`(?::\d{1,5})?(?:[/?#][^\s]*)?$`,
    ].join('');
    expect(URL_PATTERN.source).toBe(literal);
    expect(URL_PATTERN.flags).toBe('i');
  });

  it.each([
    ['http://django-helpdesk.readthedocs.org/', true],
    ['ftps://user:pw@[::1]:2121/a?b#c', true],
    ['HTTPS://Bücher.example./x', true],
    ['http://-bad.example/', false],
    ['mailto:someone@example.com', false],
    ['http://exa mple.com', false],
  ])('%s → %s', (url, ok) => {
    expect(URL_PATTERN.test(url)).toBe(ok);
  });
});
