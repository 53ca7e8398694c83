import { isConnectionLoss } from './connection-loss';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isConnectionLoss', () => {
  it.each([
    ['the server shutting down', withCode('terminating connection due to administrator command', '57P01')],
    ['the server starting up', withCode('the database system is starting up', '57P03')],
    ['a connection exception', withCode('connection failure', '08006')],
    ['too many connections', withCode('sorry, too many clients already', '53300')],
    ['a refused socket', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a socket closed under a query', new Error('Connection terminated unexpectedly')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
    ['Prisma unable to reach the server', withCode("Can't reach database server at 127.0.0.1:5432", 'P1001')],
    ['a driver adapter error wrapping the pg error', new Error('adapter error', { cause: withCode('terminating connection', '57P01') })],
  ])('is true for %s', (_what, error) => {
    expect(isConnectionLoss(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['a syntax error', withCode('syntax error at or near "selec"', '42601')],
    ['a CSV parse error', withCode('Invalid Closing Quote: got "x" at line 3', 'CSV_INVALID_CLOSING_QUOTE')],
    ['a plain error', new Error('the uploaded file is missing')],
    ['something not an Error', 'Connection terminated unexpectedly'],
  ])('is false for %s', (_what, error) => {
    expect(isConnectionLoss(error)).toBe(false);
  });
});
