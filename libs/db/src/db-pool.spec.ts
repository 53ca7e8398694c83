import { withServerOptions } from './db-pool';

describe('withServerOptions', () => {
  it('adds the setting to a URL without server options', () => {
    const url = new URL(withServerOptions('postgresql://postgres@127.0.0.1:5432/workline', '-c enable_seqscan=off'));
    expect(url.searchParams.get('options')).toBe('-c enable_seqscan=off');
    expect(`${url.protocol}//${url.username}@${url.host}${url.pathname}`).toBe('postgresql://postgres@127.0.0.1:5432/workline');
  });

  it('keeps the server options and other parameters the URL already carries', () => {
    const url = new URL(
      withServerOptions('postgresql://u:p%40ss@db:5433/w?sslmode=require&options=-c%20search_path%3Dprobe', '-c enable_seqscan=off'),
    );
    expect(url.searchParams.get('options')).toBe('-c search_path=probe -c enable_seqscan=off');
    expect(url.searchParams.get('sslmode')).toBe('require');
    expect(decodeURIComponent(url.password)).toBe('p@ss');
  });
});
