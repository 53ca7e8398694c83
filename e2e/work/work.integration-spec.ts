import { adminCreate, http } from '@workline/testing';

describe('work API: authentication and routing', () => {
  let token: string;

  beforeAll(async () => {
    ({ token } = await adminCreate<{ token: string }>('/workers', { email: `w.${Date.now()}@example.com`, name: 'Worker' }));
  });

  it('401 without a worker token or with a wrong one', async () => {
    const none = await http('POST', '/workforce/v1/assignments/next', { body: { kind: 'unit' } });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: 'Missing worker token: send Authorization: Bearer <worker token>' });
    const wrong = await http('POST', '/workforce/v1/assignments/next', {
      headers: { authorization: 'Bearer wkr_nope' },
      body: { kind: 'unit' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: 'Invalid worker token' });
  });

  it('422 naming kind when it is missing or unknown', async () => {
    for (const body of [{}, { kind: 'video' }]) {
      const result = await http('POST', '/workforce/v1/assignments/next', { headers: { authorization: `Bearer ${token}` }, body });
      expect(result.status).toBe(422);
      expect(result.body).toMatchObject({ errors: [{ field: 'kind' }] });
    }
  });

  it('404 for an assignment id no service issued', async () => {
    const result = await http('POST', '/workforce/v1/assignments/not-an-assignment/complete', {
      headers: { authorization: `Bearer ${token}` },
      body: {},
    });
    expect(result.status).toBe(404);
    expect(result.body).toEqual({ message: 'assignment not-an-assignment not found' });
  });
});
