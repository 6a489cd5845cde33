/**
 * Inputs of the portal's people use cases (sign-up, sign-in, passwords, team), validated by ajv on
 * the server and, compiled to standalone code at build time, by the portal's forms: one schema, two
 * places, the same messages.
 */
import { displayText } from '@cw/validation';

export const EMAIL_INPUT = { type: 'string', format: 'email', minLength: 3, maxLength: 254, description: 'E-mail address.' } as const;
/** NIST SP 800-63B: at least 12 characters, any characters, no composition rules; 128 at most (the KDF's input stays bounded). */
export const PASSWORD_INPUT = { type: 'string', minLength: 12, maxLength: 128, description: 'At least 12 characters.' } as const;
/** The password as typed at sign-in: any length is checked the same way (no length hint to an attacker). */
const PASSWORD_GIVEN = { type: 'string', minLength: 1, maxLength: 1024 } as const;
const TOKEN = { type: 'string', minLength: 10, maxLength: 200 } as const;
export const ROLES = ['owner', 'developer', 'analyst'] as const;
export type Role = (typeof ROLES)[number];
/** A person's name as others read it (members, mails): no control, line-break or bidirectional characters. */
export const PERSON_NAME_INPUT = displayText({ maxLength: 100, description: 'Your name.' });

export const SIGNUP_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password'],
  properties: {
    email: EMAIL_INPUT,
    password: PASSWORD_INPUT,
    name: PERSON_NAME_INPUT,
    account_name: displayText({
      minLength: 2,
      maxLength: 100,
      description:
        'Your site, brand or company: a publisher account of that name is created, pending review. Without it only your sign-in is made (to claim an instant-monetization application).',
    }),
    website: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048, description: 'Where you publish (http or https).' },
  },
} as const;

export const SIGNIN_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password'],
  properties: { email: { type: 'string', minLength: 1, maxLength: 254 }, password: PASSWORD_GIVEN },
} as const;

export const TOKEN_INPUT = { type: 'object', additionalProperties: false, required: ['token'], properties: { token: TOKEN } } as const;

export const FORGOT_PASSWORD_INPUT = { type: 'object', additionalProperties: false, required: ['email'], properties: { email: EMAIL_INPUT } } as const;

export const RESET_PASSWORD_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['token', 'password'],
  properties: { token: TOKEN, password: PASSWORD_INPUT },
} as const;

export const REAUTH_INPUT = { type: 'object', additionalProperties: false, required: ['password'], properties: { password: PASSWORD_GIVEN } } as const;

export const CHANGE_PASSWORD_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['current_password', 'new_password'],
  properties: { current_password: PASSWORD_GIVEN, new_password: PASSWORD_INPUT },
} as const;

export const INVITE_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'role'],
  properties: { email: EMAIL_INPUT, role: { type: 'string', enum: ROLES } },
} as const;

export const ROLE_INPUT = { type: 'object', additionalProperties: false, required: ['role'], properties: { role: { type: 'string', enum: ROLES } } } as const;

/** Accepting an invitation: signed in already, or signing up with the invited address (password and name). */
export const ACCEPT_INVITATION_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: { token: TOKEN, password: PASSWORD_INPUT, name: PERSON_NAME_INPUT },
} as const;
