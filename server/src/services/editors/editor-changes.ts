import type { Core } from '@strapi/strapi';
import type { EditorChangePolicy } from '../../contract/editor-change-policies';
import { fingerprintedAttributes, type Fingerprints } from '../../mapping/fingerprints';
import type { Resource } from '../../resources';
import type { LocaleScope } from '../site/locales';
import type { ManagedEntry } from './fingerprints';
import type { ContractInput, EditorChangeDecision } from '../types';
import { getService } from '../../plugin';
import { PLUGIN_ID } from '../../constants';
import { isPluginWork } from '../delivery/transactions';
import { TransactionEnded } from '../../database/transactions';
import { sharesValuesAcrossLocales } from '../../database/published-version';

/**
 * What a Document Service action tells of its document's draft: saved in Strapi (true), published
 * or discarded (false), written by the plugin itself (null), or nothing.
 */
function draftSavedBy(action: string, status: unknown): boolean | null | undefined {
  if (action === 'publish' || action === 'discardDraft') return false;
  if (action !== 'update') return undefined;
  if (status === 'published') return false;
  return isPluginWork() ? null : true;
}

/** The locales of the versions a Document Service call answered with ('' for a type without i18n). */
function localesWritten(result: unknown): string[] {
  const answer = result as { entries?: unknown } | null | undefined;
  const entries: unknown[] = Array.isArray(answer?.entries) ? answer.entries : answer ? [answer] : [];
  return entries.map((entry) => {
    const locale = (entry as { locale?: unknown } | null)?.locale;
    return typeof locale === 'string' ? locale : '';
  });
}

const without = (input: ContractInput, fields: string[]) =>
  Object.fromEntries(Object.entries(input).filter(([field]) => !fields.includes(field)));

function noteOf(changed: string[], policy: EditorChangePolicy, requested: EditorChangePolicy) {
  const them = changed.length > 1 ? 'them' : 'it';
  const outcome = {
    overwrite: `the platform's ${changed.length > 1 ? 'values replaced' : 'value replaced'} the editor's`,
    keep: `the editor's ${changed.length > 1 ? 'values were' : 'value was'} kept and the other fields updated`,
    draft:
      'the update went to the draft for review; the published version stays as the editor left it (the entry shows as Modified)',
  }[policy];
  const fallback =
    policy === requested ? '' : `; the type has no draft & publish, so "${policy}" applied instead`;
  return `${changed.join(', ')}: changed in Strapi since the platform last sent ${them}; ${outcome} (editor changes policy "${requested}"${fallback}).`;
}

/**
 * Editors and the platform side by side: which of the fields an update carries an editor
 * changed in Strapi since the platform last wrote them (their fingerprints no longer match), and
 * what the site's policy does about it.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => ({
  /**
   * The fields of the entry someone changed in Strapi since the platform last sent them (every
   * field the plugin wrote, `kept`, not only those an update carries). Read outside any transaction.
   */
  async changedSince(
    resource: Resource,
    documentId: string,
    at: LocaleScope,
    kept: Fingerprints
  ): Promise<string[]> {
    const fingerprints = getService(strapi, 'fingerprints');
    const written = Object.keys(kept);
    if (written.length === 0) return [];
    const attributes = fingerprintedAttributes(written, kept);
    const stored = await getService(strapi, 'fields').storedValues(resource, documentId, at, {}, attributes);
    return stored ? fingerprints.changed(resource, written, kept, stored) : [];
  },

  /**
   * Why a publish of a post with no published version waits for review, or none: under `keep`
   * and `draft` an editor's decision wins. An editor unpublished it since the platform published
   * it, or its draft, its only version, holds fields an editor changed in Strapi since the
   * platform last sent them (`entry`'s fingerprints). Read before the update writes.
   */
  async publishHeldBy(
    resource: Resource,
    documentId: string,
    at: LocaleScope,
    entry: Pick<ManagedEntry, 'fingerprints' | 'publishedByPlatform' | 'draftSavedInStrapi'>
  ): Promise<string | undefined> {
    const policy = await getService(strapi, 'settings').editorChangePolicy();
    if (policy === 'overwrite') return undefined;
    const review = `so the post stays a draft for review; publish it in the Content Manager once reviewed (editor changes policy "${policy}").`;
    if (entry.publishedByPlatform) {
      return `not published: an editor unpublished the post in Strapi after the platform published it, ${review}`;
    }
    const changed = await this.changedSince(resource, documentId, at, entry.fingerprints);
    if (changed.length > 0)
      return `not published: an editor changed ${changed.join(', ')} in Strapi and did not publish it, ${review}`;
    // Fields the platform never sent have no fingerprint: the save itself tells of them.
    if (entry.draftSavedInStrapi)
      return `not published: an editor saved the post's draft in Strapi and did not publish it, ${review}`;
    return undefined;
  },

  /**
   * Follows what happens to the drafts of the platform's posts through the Document Service: a
   * save in Strapi (the Content Manager, the site's code) marks the draft as holding an editor's
   * unreviewed changes; a publish of the draft or its discard, by anyone, clears the mark. The
   * plugin's own saves leave it as it is, noted: a draft saved later than the last note counts as
   * an editor's save even without the mark (fingerprints.draftSavedSinceNoted).
   */
  followDraftSaves() {
    strapi.documents.use(async (context, next) => {
      const result = await next();
      const params = context.params as { documentId?: unknown; locale?: unknown; status?: unknown };
      const saved = draftSavedBy(context.action, params.status);
      if (saved !== undefined && typeof params.documentId === 'string') {
        const { documentId } = params;
        await getService(strapi, 'editor-changes')
          .noteDraftSave(context.uid, documentId, result, saved)
          .catch((error: Error) => {
            // In the plugin's own work the note is a statement of its transaction: the work fails with it
            // (fingerprints.markDraftSaved). A failure that ended the caller's transaction (a deadlock
            // on MySQL and MariaDB) is the caller's too: what it runs next would run outside one.
            if (isPluginWork() || error instanceof TransactionEnded) throw error;
            strapi.log.warn(
              `[${PLUGIN_ID}] could not note the ${context.action} of ${context.uid} ${documentId}'s draft: ${error.message}`
            );
          });
      }
      return result;
    });
  },

  /**
   * Notes on a platform's post that the drafts a Document Service call wrote (`result`, its
   * answer) were saved by an editor (`saved` true), written by the plugin itself (null), or
   * published or discarded (false). Also called by a restore from the plugin's panel, which is
   * an editor's save done in the plugin's own work.
   */
  async noteDraftSave(
    uid: string,
    documentId: string,
    result: unknown,
    saved: boolean | null
  ): Promise<void> {
    if (!getService(strapi, 'mapping').storesPostsIn(uid)) return;
    // The versions the call wrote, not the locales it named: Strapi applies a call without
    // one to the default locale only. A save of a value every locale shares (i18n copies it
    // into the other locales' drafts, past this middleware) changes every locale's draft.
    const locales = saved !== false && sharesValuesAcrossLocales(strapi, uid) ? '*' : localesWritten(result);
    await getService(strapi, 'fingerprints').markDraftSaved(uid, documentId, locales, saved);
  },

  /** What the policy does with `input`, given the fingerprints `kept` the caller read in its transaction. */
  async decide(
    resource: Resource,
    documentId: string,
    at: LocaleScope,
    input: ContractInput,
    kept: Fingerprints
  ): Promise<EditorChangeDecision> {
    const fingerprints = getService(strapi, 'fingerprints');
    const sent = Object.keys(input).filter((field) => input[field] !== undefined && kept[field]);
    const stored = await getService(strapi, 'fields').storedValues(
      resource,
      documentId,
      at,
      input,
      fingerprintedAttributes(sent, kept)
    );
    const changed = fingerprints.changed(resource, sent, kept, stored ?? {});
    if (changed.length === 0) return { changed, policy: 'overwrite', input, kept, stored };
    const requested = await getService(strapi, 'settings').editorChangePolicy();
    const policy = requested === 'draft' && !resource.draftAndPublish ? 'keep' : requested;
    if (policy !== 'keep') {
      const revisions = getService(strapi, 'revisions');
      await revisions.keep(resource, documentId, at, 'update', revisions.valuesOf(resource, changed, stored));
    }
    return {
      changed,
      policy,
      input: policy === 'keep' ? without(input, changed) : input,
      kept,
      stored,
      note: noteOf(changed, policy, requested),
    };
  },
});
