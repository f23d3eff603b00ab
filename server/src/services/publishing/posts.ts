import type { Core } from '@strapi/strapi';
import type { PostCreate, PostUpdate } from '../../contract/schemas';
import { ContractError } from '../../contract/errors';
import { toSlug } from '../../utils/slug';
import type { LocaleScope } from '../site/locales';
import { slugKey, sourceKey } from './identities';
import type { Transaction } from '../delivery/transactions';
import type { EditorChangeDecision, EntityResult, MediaMap, WriteResult } from '../types';
import { sharedAttributesOf } from '../../database/published-version';
import type { VersionState } from '../editors/versions';
import type { DocumentEntry } from '../../database/documents';
import { getService, pluginConfig } from '../../plugin';
import { documentsOf } from '../../database/documents';
import type { Timing } from '../../contract/scheduling';
import type { Fingerprints } from '../../mapping/fingerprints';
import type { ManagedEntry } from '../editors/fingerprints';
import { sharedRegistryOf, type Resource } from '../../resources';

/** Where a post joins the document other connections made for its source_id (see localizationLink). */
type LocalizationLink =
  | { registry: string; key: string; documentId?: string; note?: never }
  | { note: string; registry?: never; key?: never; documentId?: never };

/**
 * Posts as the contract sees them (section 2.1, states in section 3): `publish` means the
 * document has a published version, `draft` that it has none. Every write runs in one
 * transaction with the document's rows locked, so concurrent requests apply one by one. In a
 * type with i18n on, every read and write addresses the plugin's locale (`at`) only.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const identities = () => getService(strapi, 'identities');
  const fields = () => getService(strapi, 'fields');
  const versions = () => getService(strapi, 'versions');
  const fingerprints = () => getService(strapi, 'fingerprints');
  const editorChanges = () => getService(strapi, 'editor-changes');
  const resource = (): Resource => getService(strapi, 'mapping').resource('post');
  const posts = () => documentsOf(strapi, resource().uid);
  const schedules = () => getService(strapi, 'schedules');

  /**
   * The source_id names this post from now on. One that another post holds is refused: two posts
   * showing one source_id would leave the next publish of it updating only one of them.
   */
  async function linkSource(transaction: Transaction, sourceId: string, documentId: string, at: LocaleScope) {
    const { registry, uid } = resource();
    const key = sourceKey(sourceId);
    // The update locked the post's rows already: most updates send the source_id the post has.
    const holder = await identities().findLive(transaction.trx, registry, uid, [key], at, documentId);
    if (holder === documentId) return;
    if (holder) {
      throw new ContractError(
        409,
        `source_id "${sourceId}" already belongs to post ${holder}. Send this update to that post, or give this post a source_id of its own.`
      );
    }
    await identities().claim(transaction.trx, registry, key, documentId);
  }

  /**
   * Whether the update publishes or unpublishes the post: as the status its timing (else its
   * input) says (none: as it is), except that an update sent to the draft for review publishes nothing.
   */
  function statusChange({ status }: Pick<PostUpdate, 'status'>, published: boolean, forReview: boolean) {
    const wanted = resource().draftAndPublish && (status ? status === 'publish' : published);
    return {
      publish: wanted && !forReview,
      unpublish: published && (forReview ? status === 'draft' : !wanted),
    };
  }

  /**
   * The status to apply and the publish `input` leaves waiting for its date, after the one that
   * waited (`scheduled`). An update held for review publishes nothing, later neither: a publish
   * waiting for a date is cancelled.
   */
  function waitingPublish(input: PostUpdate, scheduled: Date | null, forReview: boolean) {
    const timing = schedules().timing(resource(), input, scheduled);
    return timing && forReview ? { status: input.status, publishAt: null } : timing;
  }

  /**
   * Keeps what a write leaves of the entry in its managed-entry row, the fingerprints of the
   * fields it wrote (none: it wrote none), the publish waiting (none: no timing) and whether the
   * platform left it published (undefined: as it was), in one write. Returns the note that says a
   * publish waits.
   */
  async function recordEntry(
    { trx }: Transaction,
    documentId: string,
    at: LocaleScope,
    written: Fingerprints | undefined,
    timing: Timing | undefined,
    publishedByPlatform: boolean | undefined
  ) {
    const scheduledAt = timing ? timing.publishAt : undefined;
    await fingerprints().record(trx, resource(), documentId, at, {
      fingerprints: written,
      scheduledAt,
      publishedByPlatform,
    });
    return timing && schedules().noteOf(timing);
  }

  /**
   * Writes the fields `input` carries. Those an editor changed in Strapi since the platform last
   * sent them are written, kept or sent to the draft for review as the site's policy says (the
   * editor-changes service). The status is applied as sent, except that an update for review
   * publishes nothing, nor does one whose publish would put an editor's unreviewed draft live
   * under `keep` or `draft`, and a publish that waits for its date (the schedules service) leaves a draft.
   * The entry's managed-entry row (fingerprints, waiting publish) is read once and written once.
   */
  async function applyUpdate(
    transaction: Transaction,
    documentId: string,
    at: LocaleScope,
    input: PostUpdate,
    media: MediaMap
  ) {
    const entry = await fingerprints().entry(transaction.trx, resource(), documentId, at);
    const decision = await editorChanges().decide(resource(), documentId, at, input, entry.fingerprints);
    const toUpdateData = (current?: Record<string, unknown> | null, status?: 'draft' | 'published') =>
      fields().toUpdateData(transaction, resource(), documentId, at, decision.input, media, current, status);
    const forDraft = await toUpdateData(decision.stored);
    const { notes } = forDraft;
    if (decision.note) notes.push(decision.note);
    const forReview = decision.policy === 'draft' && decision.changed.length > 0;
    const timing = waitingPublish(input, entry.scheduledAt, forReview);
    if (input.source_id) await linkSource(transaction, input.source_id, documentId, at);
    const plan = await publishPlan(documentId, at, input, entry, timing, forReview);
    if (plan.held) notes.push(plan.held);
    const { state, publish, unpublish } = plan;

    const { written, recorded, addedNotes } = await writeVersions(
      documentId,
      at,
      { state, publish },
      { forDraft, forPublished: () => toUpdateData(undefined, 'published'), decision }
    );
    notes.push(...addedNotes);
    if (unpublish) await posts().unpublish({ documentId, ...at });
    // Remembered only when the platform left the post published or unpublished it itself: a held
    // publish keeps the memory of the editor's unpublish, so the next publish is held too.
    const leftPublished = publish || (state.published && !unpublish);
    const publishedByPlatform = leftPublished ? true : input.status === 'draft' ? false : undefined;
    const scheduled = await recordEntry(
      transaction,
      documentId,
      at,
      recorded,
      plan.waiting,
      publishedByPlatform
    );
    if (scheduled) notes.push(scheduled);
    if (input.status === 'draft' && !resource().draftAndPublish) {
      notes.push(`${resource().uid} has no draft & publish, so the post stays published.`);
    }
    return {
      ...(await getService(strapi, 'entities').response(resource(), documentId, written, at)),
      notes,
    };
  }

  /**
   * Writes the update's fields to the versions `plan` says, or, with no field to write, publishes
   * the post when it is to be published. `recorded`: the fingerprints of the fields written.
   */
  async function writeVersions(
    documentId: string,
    at: LocaleScope,
    plan: { state: VersionState; publish: boolean },
    {
      forDraft,
      forPublished,
      decision,
    }: { forDraft: WriteResult; forPublished: () => Promise<WriteResult>; decision: EditorChangeDecision }
  ): Promise<{ written?: DocumentEntry | null; recorded?: Fingerprints; addedNotes: string[] }> {
    if (Object.keys(forDraft.data).length > 0) {
      const update = await versions().writeUpdate(resource(), documentId, at, plan, forDraft, forPublished);
      return { ...update, recorded: fingerprints().of(resource(), forDraft, decision) };
    }
    if (plan.publish && !plan.state.published) await posts().publish({ documentId, ...at });
    return { addedNotes: [] };
  }

  /**
   * What an update does to the post's versions: whether it publishes or unpublishes, the publish it
   * leaves waiting, and `held`, the note when the editor-changes policy holds the publish back.
   */
  async function publishPlan(
    documentId: string,
    at: LocaleScope,
    input: PostUpdate,
    entry: ManagedEntry,
    timing: ReturnType<typeof waitingPublish>,
    forReview: boolean
  ) {
    // Read here, not from the rows the caller locked: a publish that committed while this request
    // waited for the lock replaced the published row by a new one, which that statement did not see.
    const state = await versions().state(resource(), documentId, at, entry.draftSavedInStrapi);
    const { publish: wanted, unpublish } = statusChange(timing ?? input, state.published, forReview);
    // A publish at a later date is held as one now is: at its date nobody would ask the editors.
    const held =
      (wanted || Boolean(timing?.publishAt)) && !state.published
        ? await editorChanges().publishHeldBy(resource(), documentId, at, entry)
        : undefined;
    const waiting = held && timing ? { ...timing, publishAt: null } : timing;
    return { state, publish: wanted && !held, unpublish, waiting, held };
  }

  /**
   * With `linkLocalizations` on, in a type with i18n: the registry the connections share for this
   * post's source_id, and the document another connection made for it, which this post joins as
   * its localization in this connection's locale. A document that has this locale already (an
   * editor's translation, or a connection of the same locale) stays as it is: the post is then a
   * document of its own, and `note` says why.
   */
  async function localizationLink(
    { trx }: Transaction,
    sourceId: string | undefined,
    at: LocaleScope
  ): Promise<LocalizationLink | undefined> {
    if (!sourceId || !at.locale || !pluginConfig(strapi).linkLocalizations) return undefined;
    const { uid } = resource();
    const registry = sharedRegistryOf('l10n', uid);
    const key = sourceKey(sourceId);
    const documentId = await identities().findLive(trx, registry, uid, [key]);
    if (!documentId) return { registry, key };
    if (!(await identities().lockDocument(trx, uid, documentId, at))) return { registry, key, documentId };
    return {
      note: `source_id "${sourceId}" names document ${documentId}, which already has a "${at.locale}" localization the plugin did not write for this connection; it stays as it is, and this post is a document of its own.`,
    };
  }

  /**
   * A localization joining another connection's document leaves the values every locale shares
   * (i18n's non-localized attributes) as the document has them: Strapi would copy this post's
   * into the other locales' published versions, behind their publishers' backs.
   */
  function leaveSharedValues(written: WriteResult) {
    const shared = new Set(sharedAttributesOf(strapi, resource().uid));
    const fields = Object.keys(written.attributesOf).filter((field) =>
      written.attributesOf[field].some((attribute) => shared.has(attribute))
    );
    for (const field of fields) {
      for (const attribute of written.attributesOf[field]) delete written.data[attribute];
      delete written.attributesOf[field];
    }
    if (fields.length > 0)
      written.notes.push(
        `${fields.join(', ')}: every locale of the document shares ${fields.length > 1 ? 'these' : 'this'}, so ${fields.length > 1 ? 'they stay' : 'it stays'} as its other localizations have ${fields.length > 1 ? 'them' : 'it'}.`
      );
  }

  /** The post's first version in its locale: a new document, or a new localization of `link`'s. */
  async function writeFirstVersion(
    at: LocaleScope,
    data: Record<string, unknown>,
    publish: boolean,
    link?: LocalizationLink
  ) {
    const status = publish ? { status: 'published' as const } : {};
    if (!link?.documentId) return posts().create({ ...at, data, ...status });
    // Strapi's update of a locale the document lacks creates it, with the document's non-localized values.
    const localization = await posts().update({ documentId: link.documentId, ...at, data, ...status });
    if (!localization)
      throw new Error(`${resource().uid} ${link.documentId} vanished while its rows were locked`);
    return localization;
  }

  async function createNew(
    transaction: Transaction,
    at: LocaleScope,
    input: PostCreate,
    media: MediaMap,
    link?: LocalizationLink
  ) {
    const { registry, uid, slugField } = resource();
    const written = await fields().toData(transaction, resource(), input, media);
    if (link?.documentId) leaveSharedValues(written);
    const { data, notes } = written;
    if (link?.note) notes.push(link.note);
    const timing = schedules().timing(resource(), input, null);
    const status = timing ? timing.status : input.status;
    const slug = slugField
      ? await identities().freeSlug(transaction.trx, registry, uid, slugField, toSlug(input.title, registry))
      : undefined;
    const post = await writeFirstVersion(
      at,
      slugField ? { ...data, [slugField]: slug } : data,
      status === 'publish',
      link
    );
    const keys = [...(slug ? [slugKey(slug)] : []), ...(input.source_id ? [sourceKey(input.source_id)] : [])];
    await identities().claimDocument(transaction.trx, registry, keys, post.documentId, uid);
    // The first connection to publish the source_id names the document for the others.
    if (link?.key && !link.documentId)
      await identities().claim(transaction.trx, link.registry, link.key, post.documentId);
    const scheduled = await recordEntry(
      transaction,
      post.documentId,
      at,
      fingerprints().of(resource(), written),
      timing,
      status === 'publish'
    );
    if (scheduled) notes.push(scheduled);
    return {
      ...(await getService(strapi, 'entities').response(resource(), post.documentId, post, at)),
      notes,
    };
  }

  return {
    /**
     * Publishing content whose source_id already has a post updates that post, so retries
     * and republishes never duplicate. A post deleted in Strapi meanwhile is not resurrected:
     * the source_id is relinked to a new post.
     */
    async create(input: PostCreate): Promise<EntityResult> {
      const at: LocaleScope = await getService(strapi, 'locales').scopeOf(resource());
      const result = await fields().withMedia(
        resource(),
        input,
        async (transaction: Transaction, media: MediaMap) => {
          if (input.source_id) {
            const { registry, uid } = resource();
            const known = await identities().findLive(
              transaction.trx,
              registry,
              uid,
              [sourceKey(input.source_id)],
              at
            );
            if (known) return applyUpdate(transaction, known, at, input, media);
          }
          return createNew(
            transaction,
            at,
            input,
            media,
            await localizationLink(transaction, input.source_id, at)
          );
        }
      );
      return getService(strapi, 'entities').withDraftPreview(resource(), result, at);
    },

    async update(documentId: string, input: PostUpdate): Promise<EntityResult> {
      const at: LocaleScope = await getService(strapi, 'locales').scopeOf(resource());
      const result = await fields().withMedia(
        resource(),
        input,
        async (transaction: Transaction, media: MediaMap) => {
          await getService(strapi, 'entities').lockOwnOrNotFound(transaction, resource(), documentId, at);
          return applyUpdate(transaction, documentId, at, input, media);
        }
      );
      return getService(strapi, 'entities').withDraftPreview(resource(), result, at);
    },

    remove: (documentId: string) => getService(strapi, 'entities').remove(resource(), documentId),
  };
};
