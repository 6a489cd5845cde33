import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { newRule, routesOf, ruleProblems, ruleProblemsOf, type RuleDraft } from './link-routing-rules';

const rule = (patch: Partial<RuleDraft>): RuleDraft => ({ ...newRule(), ...patch });

describe('routing rules as the request sends them', () => {
  it('reads countries typed in any case, separated by commas, semicolons or spaces', () => {
    const routes = routesOf([rule({ countries: 'de, at;ch  fr', devices: ['ios'], landing: '  https://shop.example/de  ' })]);
    expect(routes).toEqual([{ countries: ['DE', 'AT', 'CH', 'FR'], devices: ['ios'], landing_url: 'https://shop.example/de' }]);
  });

  it('leaves out a rule’s empty countries and devices (any visitor matches them)', () => {
    expect(routesOf([rule({ landing: 'https://shop.example/' })])).toEqual([{ landing_url: 'https://shop.example/' }]);
  });

  it('gives each new rule its own key, so removing one keeps the others’ fields', () => {
    expect(newRule().key).not.toBe(newRule().key);
  });
});

describe('a rule’s problems before the call', () => {
  it('names the country code that is not two letters, on that rule', () => {
    expect(ruleProblems([rule({ countries: 'DE', landing: 'https://a.example' }), rule({ countries: 'de, Germany', landing: 'https://a.example' })])).toEqual({
      'routes.1.countries': '“GERMANY” is not a two-letter country code (DE, FR, US …).',
    });
  });

  it('asks for a landing URL, and one that starts with http:// or https://', () => {
    expect(ruleProblems([rule({ landing: '  ' }), rule({ landing: 'shop.example/x' }), rule({ landing: 'HTTPS://shop.example/x' })])).toEqual({
      'routes.0.landing_url': 'Enter the landing URL for visitors this rule matches.',
      'routes.1.landing_url': 'Must start with http:// or https://.',
    });
  });
});

describe('the API’s problems with rules', () => {
  it('are placed on the rule and field they name, as sentences', () => {
    const refused = new ApiError({
      status: 400,
      code: 'invalid_parameter',
      detail: 'Invalid.',
      errors: [
        { param: 'body.routes[1].landing_url', detail: 'is not on the program’s allowed domains' },
        { param: 'routes[0].countries', detail: 'Has an unknown country: XX.' },
        { param: 'routes[1].landing_url', detail: 'a second problem on the same field' },
        { param: 'subid', detail: 'not a rule' },
      ],
    });
    expect(ruleProblemsOf(refused)).toEqual({
      'routes.1.landing_url': 'Is not on the program’s allowed domains.',
      'routes.0.countries': 'Has an unknown country: XX.',
    });
    expect(ruleProblemsOf(new Error('offline'))).toEqual({});
  });
});
