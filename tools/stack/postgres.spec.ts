/** Where npm start's PostgreSQL comes from (docs/operations.md, "Embedded PostgreSQL"). */
import { type EmbeddedMode, embeddedPostgresMode, postgresSource } from './postgres';

describe('embeddedPostgresMode', () => {
  it('runs the embedded server only as a fallback when DATABASE_URL is unset', () => {
    expect(embeddedPostgresMode({})).toBe('fallback');
    expect(embeddedPostgresMode({ DATABASE_URL: 'postgresql://db.internal/workline' })).toBe('never');
  });

  it('lets WORKLINE_EMBEDDED_POSTGRES force it either way, DATABASE_URL or not', () => {
    expect(embeddedPostgresMode({ WORKLINE_EMBEDDED_POSTGRES: '1', DATABASE_URL: 'postgresql://127.0.0.1:6543/w' })).toBe('always');
    expect(embeddedPostgresMode({ WORKLINE_EMBEDDED_POSTGRES: '0' })).toBe('never');
    expect(embeddedPostgresMode({ WORKLINE_EMBEDDED_POSTGRES: '' })).toBe('fallback');
  });

  it('names the variable and its values when it is neither 1 nor 0', () => {
    expect(() => embeddedPostgresMode({ WORKLINE_EMBEDDED_POSTGRES: 'yes' })).toThrow(
      'WORKLINE_EMBEDDED_POSTGRES must be 1 (always run the embedded PostgreSQL) or 0 (never), not "yes"',
    );
  });
});

describe('postgresSource', () => {
  const local = { answers: false, loopback: true, installed: false };

  it('reuses a server that answers, whatever the mode allows', () => {
    for (const mode of ['never', 'fallback'] as EmbeddedMode[]) expect(postgresSource({ ...local, mode, answers: true })).toBe('server');
  });

  it('starts an installed local cluster before it considers the embedded server', () => {
    expect(postgresSource({ ...local, mode: 'fallback', installed: true })).toBe('local-cluster');
    expect(postgresSource({ ...local, mode: 'never', installed: true })).toBe('local-cluster');
  });

  it('runs the embedded server when nothing answers and none is installed, if the mode allows it', () => {
    expect(postgresSource({ ...local, mode: 'fallback' })).toBe('embedded');
    expect(postgresSource({ ...local, mode: 'never' })).toBe('missing');
  });

  it('never replaces a remote server that does not answer', () => {
    expect(postgresSource({ ...local, mode: 'fallback', loopback: false })).toBe('missing');
  });

  it('runs the embedded server when forced, even where another one answers or is installed', () => {
    expect(postgresSource({ mode: 'always', answers: true, loopback: true, installed: true })).toBe('embedded');
  });
});
