import { describe, expect, it } from 'vitest';
import { ApiError } from '@cw/errors';
import { parseResultsCsv } from './results-csv';

const refusal = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected a refusal');
};

describe('parseResultsCsv (payout_id,status,reason_code,reason_message)', () => {
  it("reads each payout's outcome, the reason in the file's words or the ISO code's", () => {
    const csv = [
      '\ufeffpayout_id,status,reason_code,reason_message',
      'po_1,paid,,',
      'po_2,failed,AC04,',
      'po_3,FAILED,,"Recipient\'s PayPal account is limited, ask them to check it"',
      'po_4,pending,,',
      'po_5,failed,RR03,Name missing',
      '',
    ].join('\r\n');
    expect(parseResultsCsv(csv)).toEqual([
      { endToEndId: 'po_1', status: 'paid' },
      { endToEndId: 'po_2', status: 'failed', reason: { code: 'AC04', message: 'The account is closed.' } },
      { endToEndId: 'po_3', status: 'failed', reason: { code: 'NARR', message: "Recipient's PayPal account is limited, ask them to check it" } },
      { endToEndId: 'po_4', status: 'pending' },
      { endToEndId: 'po_5', status: 'failed', reason: { code: 'RR03', message: 'Name missing' } },
    ]);
  });

  it('takes a file with only the payout id and status columns', () => {
    expect(parseResultsCsv('status,payout_id\npaid,po_1\nfailed,po_2\n')).toEqual([
      { endToEndId: 'po_1', status: 'paid' },
      { endToEndId: 'po_2', status: 'failed' },
    ]);
  });

  it('refuses a file that is not a results CSV, naming the line (400 invalid_parameter, never a crash)', () => {
    const header = 'payout_id,status,reason_code,reason_message\n';
    const cases: Array<[string, unknown, RegExp]> = [
      ['an empty file', '  \n', /empty/],
      ['no header', 'po_1,paid,,\n', /first line must be the header/],
      ['an unknown column', 'payout_id,status,amount\npo_1,paid,1.00\n', /first line must be the header/],
      ['a column twice', 'payout_id,status,status\npo_1,paid,paid\n', /first line must be the header/],
      ['only the header', header, /no rows/],
      ['a status that is none', `${header}po_1,done,,\n`, /line 2: status must be paid, failed or pending/],
      ['a payout twice', `${header}po_1,paid,,\npo_1,failed,AC04,\n`, /line 3: po_1 is listed twice/],
      ['a payout id with a formula', `${header}=cmd|' /C calc'!A0,paid,,\n`, /line 2: payout_id is not a payout id/],
      ['a row with too many cells', `${header}po_1,paid,,,extra\n`, /cannot be read/],
      ['an unclosed quote', `${header}po_1,"paid,,\n`, /cannot be read/],
      ['a reason code that is no code', `${header}po_1,failed,<b>x</b>,\n`, /line 2: reason_code is not a code/],
      ['XML instead', '<Document/>', /first line must be the header/],
    ];
    for (const [what, csv, detail] of cases) {
      const err = refusal(() => parseResultsCsv(csv as string));
      expect(err, what).toBeInstanceOf(ApiError);
      expect([err.status, err.code, err.errors?.[0]?.param], what).toEqual([400, 'invalid_parameter', 'file']);
      expect(err.detail, what).toMatch(detail);
    }
  });
});
