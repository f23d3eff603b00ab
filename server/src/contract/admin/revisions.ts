/**
 * The routes about one entry (controllers/admin-revisions.ts): GET /revisions, GET /entries,
 * DELETE /entries/schedule and POST /revisions/:id/restore. The first three name the entry in
 * their query alike.
 */
import { z } from 'zod';
import type { ActivityItem, Data } from './common';

export const revisionsQuerySchema = z
  .object({
    uid: z.string().min(1).max(191),
    documentId: z.string().min(1).max(64),
    locale: z.string().max(32).optional(),
  })
  .strict();

export type RevisionsQuery = z.input<typeof revisionsQuerySchema>;

/** A row id: databases keep them as 32-bit integers. */
export const revisionIdSchema = z.coerce.number().int().positive().max(2_147_483_647);

/** An entry's values as they were before the plugin overwrote or deleted them. */
export type RevisionItem = {
  id: number;
  createdAt: string;
  /** `update`: the platform's update replaced what an editor changed; `delete`: the entry was deleted. */
  reason: 'update' | 'delete';
  /** Contract field → attribute → value as it was (related entries and files as read, one level deep). */
  fields: Record<string, Record<string, unknown>>;
};

/** A relation a restore left out: what it pointed at was deleted since. `field` is the attribute. */
export type LeftOutRelation = { field: string; reason: string };

export type CancelledSchedule = { cancelled: true };

export type RestoredRevision = { documentId: string; recreated: boolean; leftOut: LeftOutRelation[] };

/** What the Content Manager's side panel shows for an entry. */
export type ManagedEntryPanel =
  | { managed: false }
  | {
      managed: true;
      /** The connection (config `connections`) whose publisher wrote the entry; absent on a site with one. */
      connection?: string;
      /** The publisher's source_id for a post, when the registry holds it as sent. */
      sourceId?: string;
      lastDelivery?: ActivityItem;
      /** When its publish waits for (a post sent with a future date), as an ISO time. */
      scheduledAt?: string;
      /** Whether a publish waits and the admin may publish the entry, and so cancel it (DELETE /entries/schedule). */
      mayCancelSchedule: boolean;
      /**
       * The link the platform was last answered for the entry: for a draft, the URL Strapi's
       * Preview builds (`urlKind` preview), where the site configured Preview; else its public URL.
       * Absent when the site has no URL template for the type, or the admin may not read the slug.
       */
      url?: string;
      urlKind?: 'public' | 'preview';
      /** Fields someone changed in Strapi since the platform last sent them. */
      changedByEditors: string[];
      revisions: RevisionItem[];
    };

/** GET /revisions */
export declare namespace GetRevisions {
  export type Request = { query: RevisionsQuery };
  export type Response = Data<RevisionItem[]>;
}

/** GET /entries */
export declare namespace GetEntry {
  export type Request = { query: RevisionsQuery };
  export type Response = Data<ManagedEntryPanel>;
}

/** DELETE /entries/schedule */
export declare namespace CancelSchedule {
  export type Request = { query: RevisionsQuery };
  export type Response = Data<CancelledSchedule>;
}

/** POST /revisions/:id/restore */
export declare namespace RestoreRevision {
  export type Request = { params: { id: string } };
  export type Response = Data<RestoredRevision>;
}
