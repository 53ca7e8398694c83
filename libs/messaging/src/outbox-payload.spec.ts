import { compactJsonbText, compactPayload } from './outbox-payload';

describe('compactJsonbText', () => {
  // PostgreSQL's text output of jsonb values (select '…'::jsonb::text), as the relay reads payloads.
  const samples = [
    '{"id": "6f1c", "data": {"n": 1, "pad": "m m, m: m"}, "type": "workline.test.v1", "occurred_at": "2026-11-23T20:00:00.000Z"}',
    '{"a": [1, 2.5, -3e-7, true, false, null, {"b": []}, {}], "quote": "say \\"hi\\", then: go", "slash": "a\\\\", "tab": "x\\ty\\nz"}',
    '{"unicode": "été 🚀 \\u0001", "nested": {"deeper": {"list": [" lead", "trail ", "  "]}}}',
    '[]',
    '"a string: with, separators"',
    '12.5',
  ];

  it.each(samples)('gives what JSON.stringify makes of the parsed value: %s', (text) => {
    expect(compactJsonbText(text)).toBe(JSON.stringify(JSON.parse(text)));
  });

  it('returns a text without whitespace outside strings as it is', () => {
    const text = '{"a":"b c"}';
    expect(compactJsonbText(text)).toBe(text);
  });
});

describe('compactPayload', () => {
  it('sends a payload written as JSON.stringify wrote it unchanged, even with separators inside its strings', () => {
    const text = JSON.stringify({ id: 'e1', data: { note: 'a "quote": here, and, there', list: [1, 2] } });
    expect(compactPayload(text)).toBe(text);
  });

  it("compacts a payload in jsonb's text form (a submission's QC event, a row written before json)", () => {
    const text = '{"id": "e1", "data": {"note": "a \\"quote\\": here", "list": [1, 2]}}';
    expect(compactPayload(text)).toBe(JSON.stringify(JSON.parse(text)));
  });
});
