import type { FastifyRequest } from 'fastify';
import { presentedCredential } from './authentication';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest;
const basic = (value: string) => `Basic ${Buffer.from(value).toString('base64')}`;

describe('the credential each API group takes', () => {
  it('reads x-api-key on /v1, else HTTP Basic (the Delivery API takes both)', () => {
    expect(presentedCredential('v1', request({ 'x-api-key': 'wlk_a', authorization: basic('u:p') }))).toEqual({
      kind: 'api-key',
      key: 'wlk_a',
    });
    expect(presentedCredential('v1', request({ authorization: basic('u:p') }))).toEqual({ kind: 'account', username: 'u', password: 'p' });
    expect(presentedCredential('v1', request({ 'x-api-key': '', authorization: basic('u:p') }))).toBeUndefined();
  });

  it('reads HTTP Basic on /v4 and /v3 however the scheme is spelled, splitting at the first colon', () => {
    expect(presentedCredential('v4', request({ authorization: `bAsIc   ${Buffer.from('u:p:q').toString('base64')}` }))).toEqual({
      kind: 'account',
      username: 'u',
      password: 'p:q',
    });
    expect(presentedCredential('v3', request({ authorization: basic('no-colon') }))).toBeUndefined();
    expect(presentedCredential('v4', request({ 'x-api-key': 'wlk_a' }))).toBeUndefined();
  });

  it('reads a bearer token as a worker token on the work API and as the admin token on /admin, nothing elsewhere', () => {
    expect(presentedCredential('work', request({ authorization: 'bearer  wkr_a' }))).toEqual({ kind: 'worker', token: 'wkr_a' });
    expect(presentedCredential('admin', request({ authorization: 'Bearer t0ken' }))).toEqual({ kind: 'admin', token: 't0ken' });
    expect(presentedCredential('admin', request({ authorization: basic('u:p') }))).toBeUndefined();
    expect(presentedCredential('other', request({ authorization: 'Bearer t0ken', 'x-api-key': 'wlk_a' }))).toBeUndefined();
  });
});
