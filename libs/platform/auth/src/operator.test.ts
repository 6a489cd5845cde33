import { describe, expect, it } from 'vitest';
import { authorizeOperator, operatorRoleCovers, type OperatorPrincipal } from './operator';
import { displayPrefix, generateSecret, TOKEN_PREFIX } from './secrets';

const support: OperatorPrincipal = { type: 'operator', email: 's@network.test', role: 'support' };
const admin: OperatorPrincipal = { type: 'operator', email: 'a@network.test', role: 'admin' };

describe('operator policy', () => {
  it('lets support read and admin read and act (least privilege)', () => {
    expect(operatorRoleCovers('support', 'support')).toBe(true);
    expect(operatorRoleCovers('admin', 'support')).toBe(true);
    expect(operatorRoleCovers('admin', 'admin')).toBe(true);
    expect(operatorRoleCovers('support', 'admin')).toBe(false);
    expect(() => authorizeOperator(admin, { budget: 'portal', operator: 'admin' })).not.toThrow();
    expect(() => authorizeOperator(support, { budget: 'portal', operator: 'support' })).not.toThrow();
  });

  it('refuses a support operator an admin act with 403 role_not_allowed, naming the role it needs', () => {
    expect(() => authorizeOperator(support, { budget: 'portal', operator: 'admin' })).toThrow(
      expect.objectContaining({ status: 403, code: 'role_not_allowed', detail: expect.stringContaining('needs admin') }),
    );
  });

  it("refuses any operator a use case that is not an operator's", () => {
    expect(() => authorizeOperator(admin, { budget: 'portal' })).toThrow(expect.objectContaining({ status: 403, code: 'forbidden' }));
  });

  it('shows an operator token only by its opr_ prefix', () => {
    const secret = generateSecret(TOKEN_PREFIX.operator_token);
    expect(secret).toMatch(/^opr_/);
    expect(displayPrefix(secret)).toMatch(/^opr_.{6}…$/);
  });
});
