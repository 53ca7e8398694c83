import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { authHeaders } from './index';
import { execFileSync } from 'node:child_process';

const ROOT = join(__dirname, '..', '..', '..');

describe('typed client', () => {
  it('has the types openapi-typescript generates from the committed docs/openapi.json (npm run openapi writes them)', () => {
    const generated = execFileSync(
      process.execPath,
      [join(ROOT, 'tools', 'bootstrap.js'), 'openapi/client-types', join(ROOT, 'docs', 'openapi.json')],
      { encoding: 'utf8' },
    );
    expect(readFileSync(join(__dirname, 'generated', 'openapi.ts'), 'utf8')).toBe(generated);
  });

  it('sends each kind of credentials in its header', () => {
    expect(authHeaders({ apiKey: 'k1' })).toEqual({ 'x-api-key': 'k1' });
    expect(authHeaders({ basic: { username: 'acc', password: 'pw' } })).toEqual({
      authorization: `Basic ${Buffer.from('acc:pw').toString('base64')}`,
    });
    expect(authHeaders({ bearer: 'tok' })).toEqual({ authorization: 'Bearer tok' });
    expect(authHeaders({})).toEqual({});
  });
});
