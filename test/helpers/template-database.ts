import { createDatabase } from '../../scripts/lib/databases';
import { testDatabaseClient, TEMPLATE_VARIABLE, type TestDatabase } from './databases';
import { startInstance } from './instances';

/**
 * Jest's global setup and teardown of the integration tests: one database, made once per run,
 * that every test site's database starts as a copy of (createTestDatabase). A first boot spends
 * seconds creating Strapi's tables, roles and permissions; a boot on the copy takes about one.
 * The copy holds only what any first boot writes: the example site booted on it once and
 * stopped before any request, its plugin's indexes dropped so that each site still adds them as
 * a new install does.
 */
let template: TestDatabase | undefined;

export default async function setUp() {
  template = await createDatabase(testDatabaseClient(), 'pb_template');
  const site = await startInstance({ ...template.env, STRAPI_LOG_LEVEL: 'error' });
  await site.call('dropPluginIndexes');
  await site.stop();
  // Jest starts its workers after this, with this environment.
  process.env[TEMPLATE_VARIABLE] = template.env.DATABASE_FILENAME ?? template.env.DATABASE_NAME;
}

export async function tearDown() {
  await template?.drop();
}
