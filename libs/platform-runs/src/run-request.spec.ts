import 'reflect-metadata';
import { type DomainError } from '@workline/contracts';
import { parseBodyJson, parseRunRequest } from './run-request';

const failure = (api: 'v4' | 'v3', body: unknown) => {
  try {
    parseRunRequest(api, body);
  } catch (error) {
    const e = error as DomainError;
    return { message: e.message, v3: e.v3Code };
  }
  throw new Error('expected a failure');
};

describe('parseRunRequest', () => {
  it('accepts a valid v4 body, ignoring unknown keys and keeping inputs as they are', () => {
    const units = [{ identifier: 'a', nested: { x: [1] } }];
    expect(parseRunRequest('v4', { line_id: 'l1', units, extra: 1 })).toEqual({ lineId: 'l1', units });
    expect(parseRunRequest('v4', { line_id: 'l1', units, callback_url: 'https://x' })).toEqual({
      lineId: 'l1',
      units,
      callbackUrl: 'https://x',
    });
    expect(parseRunRequest('v4', { line_id: 'l1', units, callback_url: null })).toEqual({ lineId: 'l1', units });
  });

  it('names the first missing key, then the key of the wrong type (v4)', () => {
    expect(failure('v4', {}).message).toBe('Invalid request: missing key line_id');
    expect(failure('v4', { line_id: 'x' }).message).toBe('Invalid request: missing key units');
    expect(failure('v4', { line_id: 1, units: [] }).message).toBe(
      'Invalid request: line_id is not of the expected type (a non-empty string)',
    );
    expect(failure('v4', { line_id: 'x', units: [] }).message).toBe(
      'Invalid request: units is not of the expected type (a non-empty array of objects)',
    );
    expect(failure('v4', { line_id: 'x', units: [{}, []] }).message).toBe('Invalid request: units[1] is not of the expected type (object)');
    expect(failure('v4', { line_id: 'x', units: [{}], callback_url: 1 }).message).toBe(
      'Invalid request: callback_url is not of the expected type (string)',
    );
    expect(failure('v4', 'text').message).toBe('Invalid request: (body) is not of the expected type (a JSON object)');
  });

  it('speaks v3 codes and names for a v3 body', () => {
    expect(failure('v3', { resources: [{}] })).toEqual({ message: 'Body is invalid: missing key template_id', v3: 103 });
    expect(failure('v3', { template_id: 't' })).toEqual({ message: 'No resources were passed', v3: 107 });
    expect(failure('v3', { template_id: 't', resources: [] })).toEqual({ message: 'No resources were passed', v3: 107 });
    expect(failure('v3', { template_id: 't', resources: [1] })).toEqual({
      message: 'Data is invalid: resources[0] is not of the expected type (object)',
      v3: 102,
    });
    expect(parseRunRequest('v3', { template_id: 't', resources: [{ identifier: 'i' }] })).toEqual({
      lineId: 't',
      units: [{ identifier: 'i' }],
    });
  });

  it('refuses more than 10,000 units', () => {
    expect(failure('v4', { line_id: 'x', units: Array.from({ length: 10_001 }, () => ({})) }).message).toMatch(
      /more than the 10000 a run may hold/,
    );
  });

  it('parses the forwarded body text once; text that is not JSON is refused as a body that is not a JSON object', () => {
    expect(parseBodyJson('v4', '{"line_id":"l","units":[{"a":"é"}]}')).toEqual({ line_id: 'l', units: [{ a: 'é' }] });
    expect(() => parseBodyJson('v4', '{"line_id":')).toThrow('Invalid request: (body) is not of the expected type (a JSON object)');
    expect(() => parseBodyJson('v3', '')).toThrow('Body is invalid: (body) is not of the expected type (a JSON object)');
  });
});
