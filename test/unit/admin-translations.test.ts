import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAPABILITIES } from '../../server/src/contract/capabilities';

/** The settings page's English text, where each capability's label and description live. */
const english: Record<string, string> = JSON.parse(
  readFileSync(join(__dirname, '../../admin/src/translations/en.json'), 'utf8')
);

describe('the settings page translations', () => {
  test.each(CAPABILITIES)('name and describe the capability %s', (capability) => {
    expect(english[`capabilities.${capability}.label`]).toMatch(/\S/);
    expect(english[`capabilities.${capability}.description`]).toMatch(/\S/);
  });
});
