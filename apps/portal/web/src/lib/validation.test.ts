import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { validateLinkRequest, validateSignup } from '../generated/validators.js';
import { checkForm, errorsFromFailure, messageOf } from './validation';

describe('a form checked before the call (the API’s own schemas)', () => {
  it('passes a valid form', () => {
    expect(checkForm(validateSignup, { email: 'ana@example.com', password: 'a long enough passphrase', website: 'https://ana.example' })).toBeNull();
  });

  it('puts each problem under its field in plain words', () => {
    const e = checkForm(validateSignup, { password: 'a long enough passphrase', website: 'ftp://ana.example' });
    expect(e?.fields.email).toBe('Required.');
    expect(e?.fields.website).toBe('Must start with http:// or https://.');
    expect(e?.form).toEqual([]);
  });

  it('asks for a full URL when a landing URL is not one', () => {
    const e = checkForm(validateLinkRequest, { program_id: 1, landing_url: 'shop.example/shoes' });
    expect(e?.fields).toEqual({ landing_url: 'Enter a full URL, like https://example.com.' });
  });

  it('refuses a sub-ID with a space on the sub-ID field', () => {
    expect(checkForm(validateLinkRequest, { program_id: 1, subid: 'summer sale' })?.fields.subid).toBe('Has an invalid format.');
  });

  it('shows a problem of no one field in the summary, once', () => {
    const e = checkForm(validateLinkRequest, { program_id: 1, colour: 'red', size: 'xl' });
    expect(e?.fields).toEqual({});
    expect(e?.form).toHaveLength(1);
  });
});

describe('plain words for a schema’s errors', () => {
  const err = (keyword: string, params: Record<string, unknown>, message?: string) => ({ instancePath: '/x', schemaPath: '', keyword, params, message });
  it('says what is expected, not the schema’s terms', () => {
    expect(messageOf(err('minLength', { limit: 1 }))).toBe('Required.');
    expect(messageOf(err('minLength', { limit: 12 }))).toBe('At least 12 characters.');
    expect(messageOf(err('maxLength', { limit: 100 }))).toBe('At most 100 characters.');
    expect(messageOf(err('format', { format: 'email' }))).toBe('Enter an e-mail address, like name@example.com.');
    expect(messageOf(err('pattern', { pattern: '^[A-Z]{2}$' }))).toBe('Choose a country (a two-letter code, like DE).');
    expect(messageOf(err('enum', { allowedValues: ['monthly', 'on_request'] }))).toBe('Choose one of: monthly, on_request.');
    expect(messageOf(err('minItems', { limit: 1 }))).toBe('Choose at least one.');
    expect(messageOf(err('minProperties', { limit: 1 }))).toBe('Change at least one field.');
    expect(messageOf(err('somethingNew', {}, 'must be shiny'))).toBe('Must be shiny.');
  });
});

describe('a refused call as form errors', () => {
  const FIELDS = ['holder_name', 'iban', 'bic'];

  it('puts the API’s words about an IBAN under the IBAN field, as a sentence', () => {
    const refused = new ApiError({
      status: 400,
      code: 'invalid_parameter',
      detail: "Invalid field 'iban': has a wrong check digit.",
      request_id: 'req_1',
      errors: [{ param: 'iban', detail: 'has 2 check digits that do not match the rest of the IBAN' }],
    });
    expect(errorsFromFailure(refused, FIELDS)).toEqual({
      fields: { iban: 'Has 2 check digits that do not match the rest of the IBAN.' },
      form: [],
      request_id: 'req_1',
    });
  });

  it('reads a body parameter’s name (body.bic, body.iban[0]) as its field', () => {
    const refused = new ApiError({
      status: 400,
      code: 'invalid_parameter',
      detail: 'Invalid.',
      errors: [
        { param: 'body.bic', detail: 'must have 8 or 11 characters' },
        { param: 'body.iban[0]', detail: 'is odd' },
      ],
    });
    expect(errorsFromFailure(refused, FIELDS).fields).toEqual({ bic: 'Must have 8 or 11 characters.', iban: 'Is odd.' });
  });

  it('lists a parameter the form does not show in the summary, with its name', () => {
    const refused = new ApiError({ status: 400, code: 'invalid_parameter', detail: 'Invalid.', errors: [{ param: 'currency', detail: 'is not offered' }] });
    expect(errorsFromFailure(refused, FIELDS).form).toEqual(['Currency: is not offered.']);
  });

  it('shows the API’s detail when it names no parameter, and any other failure’s message', () => {
    const conflict = new ApiError({ status: 409, code: 'conflict', detail: 'The method changed meanwhile.' });
    expect(errorsFromFailure(conflict, FIELDS)).toEqual({ fields: {}, form: ['The method changed meanwhile.'], request_id: null });
    expect(errorsFromFailure(new Error('Failed to fetch'), FIELDS)).toEqual({ fields: {}, form: ['Failed to fetch'] });
    expect(errorsFromFailure('?', FIELDS)).toEqual({ fields: {}, form: ['Something went wrong.'] });
  });
});
