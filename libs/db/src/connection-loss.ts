/**
 * Whether an error means the database connection was lost or refused, not that a statement was wrong: the
 * server shut down or restarted (SQLSTATE 57P01–57P03), a connection exception (class 08), too many
 * connections (53300), the socket itself failed (refused, reset, timed out, closed under the client), or
 * Prisma could not reach the server or get a connection. Work that failed so can be done again once the
 * database answers; anything else is the work's own fault. Causes are followed (Prisma's driver adapter
 * wraps the pg error it got).
 */
export function isConnectionLoss(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('08') || CONNECTION_LOSS_CODES.has(code))) return true;
    if (CONNECTION_LOSS_MESSAGE.test(cause.message)) return true;
  }
  return false;
}

const CONNECTION_LOSS_CODES = new Set([
  // PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now (starting up), too_many_connections.
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // The socket.
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // Prisma: server unreachable, connect timed out, server closed the connection, pool timeout.
  'P1001',
  'P1002',
  'P1017',
  'P2024',
]);

/** node-postgres and pg-pool report a socket closed under a query, or a connect that timed out, with a plain Error. */
const CONNECTION_LOSS_MESSAGE = new RegExp(
  `^(${[
    'Connection terminated\\b',
    'Client has encountered a connection error',
    'Client was closed and is not queryable',
    'timeout exceeded when trying to connect',
  ].join('|')})`,
);
