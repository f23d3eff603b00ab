import { ContractError } from '../../server/src/contract/errors';
import { PAGE_MAX, parsePaging } from '../../server/src/contract/paging';

function refusal(query: Record<string, unknown>): string {
  try {
    parsePaging(query);
  } catch (error) {
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).status).toBe(400);
    return (error as ContractError).message;
  }
  throw new Error(`parsePaging accepted ${JSON.stringify(query)}`);
}

describe('parsePaging', () => {
  it('defaults to 100 items of page 1', () => {
    expect(parsePaging({})).toEqual({ perPage: 100, page: 1, offset: 0, limit: 100 });
  });

  it('turns page and per_page into an offset', () => {
    expect(parsePaging({ per_page: '100', page: '3' })).toEqual({
      perPage: 100,
      page: 3,
      offset: 200,
      limit: 100,
    });
    expect(parsePaging({ per_page: '1', page: '1' })).toEqual({ perPage: 1, page: 1, offset: 0, limit: 1 });
  });

  it('accepts per_page up to 250 and refuses 251', () => {
    expect(parsePaging({ per_page: '250' }).perPage).toBe(250);
    expect(refusal({ per_page: '251' })).toContain('per_page must be at most 250');
  });

  it.each(['0', '-1', 'abc', '1.5', '', ' 1', '1e2', '0x10', '+5'])('refuses per_page=%p', (value) => {
    expect(refusal({ per_page: value })).toContain('per_page ');
  });

  it.each(['0', '-1', 'abc', '1.5', ''])('refuses page=%p', (value) => {
    expect(refusal({ page: value })).toContain('page ');
  });

  it('refuses a page beyond the supported maximum', () => {
    expect(parsePaging({ page: String(PAGE_MAX) }).page).toBe(PAGE_MAX);
    expect(refusal({ page: String(PAGE_MAX + 1) })).toContain('page ');
    expect(refusal({ page: '99999999999999999999999' })).toContain('page ');
  });

  it('reads the last of repeated values', () => {
    expect(parsePaging({ per_page: ['10', '20'], page: ['5', '2'] })).toMatchObject({ perPage: 20, page: 2 });
    expect(refusal({ per_page: ['10', 'abc'] })).toContain('per_page ');
  });

  it('ignores other query parameters', () => {
    expect(parsePaging({ per_page: '5', type: 'post', sort: 'id' })).toMatchObject({ perPage: 5, page: 1 });
  });
});
