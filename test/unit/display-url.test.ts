import { displayUrl, shownLocation, withoutCredentials } from '../../server/src/utils/display-url';

describe('displayUrl', () => {
  it.each([
    ['https://user:pass@cdn.example.com/a.png', 'https://cdn.example.com/a.png'],
    ['https://user@cdn.example.com/a.png', 'https://cdn.example.com/a.png'],
    [
      'https://cdn.example.com/a.png?X-Amz-Signature=abc&X-Amz-Expires=60&X-Amz-Signature=def#top',
      'https://cdn.example.com/a.png?X-Amz-Signature=…&X-Amz-Expires=…',
    ],
    ['https://cdn.example.com/a.png', 'https://cdn.example.com/a.png'],
    ['not a url?token=secret', 'not a url…'],
    ['https://user:pass@bad host/a.png?token=secret', 'https://bad host/a.png…'],
  ])('shows %s as %s', (raw, shown) => {
    expect(displayUrl(raw)).toBe(shown);
  });
});

describe('withoutCredentials', () => {
  it('removes user:password@ after the scheme and nothing after the host', () => {
    expect(withoutCredentials('https://u:p@h ost/x@y')).toBe('https://h ost/x@y');
    expect(withoutCredentials('https://h/x?a=b@c')).toBe('https://h/x?a=b@c');
  });
});

describe('shownLocation', () => {
  it.each([
    ['https://u:p@other.example/a/b?sig=secret#x', 'https://other.example/a/b'],
    ['/login?next=/admin', 'https://platform.example/login'],
    [undefined, 'no address (no Location header)'],
    [null, 'no address (no Location header)'],
    ['http://[bad', 'an invalid address'],
  ])('shows the Location %j as %j', (location, shown) => {
    expect(shownLocation(location, 'https://platform.example/logs')).toBe(shown);
  });
});
