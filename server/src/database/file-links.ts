import type { Core } from '@strapi/strapi';
import { FILE_UID } from '../constants';
import type { Trx } from './knex';
import { joinTableOf } from './tables';

/** The upload plugin's morph table, which links files to the entries that use them through a media attribute. */
export function fileLinks(strapi: Core.Strapi) {
  return {
    /** Whether an entry links the file. */
    async isLinked(trx: Trx, fileId: number): Promise<boolean> {
      const { name, joinColumn } = joinTableOf(strapi, FILE_UID, 'related');
      return Boolean(
        await strapi.db.connection(name).transacting(trx).first(joinColumn).where(joinColumn, fileId)
      );
    },
  };
}
