import { apiClient, http, newWorkerToken } from '@workline/testing';

describe('work API: authentication and routing', () => {
  let token: string;

  beforeAll(async () => {
    token = await newWorkerToken();
  });

  it('401 without a worker token or with a wrong one', async () => {
    const none = await apiClient().POST('/workforce/v1/assignments/next', { body: { kind: 'unit' } });
    expect(none.response.status).toBe(401);
    expect(none.error).toEqual({ message: 'Missing worker token: send Authorization: Bearer <worker token>' });
    const wrong = await apiClient({ bearer: 'wkr_nope' }).POST('/workforce/v1/assignments/next', { body: { kind: 'unit' } });
    expect(wrong.response.status).toBe(401);
    expect(wrong.error).toEqual({ message: 'Invalid worker token' });
  });

  // Bodies the typed client would not send (no kind, a kind outside the enum, no output): raw http().
  it('422 naming kind when it is missing or unknown', async () => {
    for (const body of [{}, { kind: 'video' }]) {
      const result = await http('POST', '/workforce/v1/assignments/next', { headers: { authorization: `Bearer ${token}` }, body });
      expect(result.status).toBe(422);
      expect(result.body).toMatchObject({ errors: [{ field: 'kind' }] });
    }
  });

  it('404 for an assignment id no service issued, whatever the body', async () => {
    const result = await http('POST', '/workforce/v1/assignments/not-an-assignment/complete', {
      headers: { authorization: `Bearer ${token}` },
      body: {},
    });
    expect(result.status).toBe(404);
    expect(result.body).toEqual({ message: 'assignment not-an-assignment not found' });
  });
});
