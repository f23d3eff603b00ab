import type { EditorChangePolicy } from '../contract/editor-change-policies';
import type { EntityResponse } from '../contract/responses';
import type { Fingerprints } from '../mapping/fingerprints';

/**
 * What the services hand one another, declared once: no service imports another for its types,
 * so that the calls between them can be typed without a circle.
 */

/** Contract input keyed by contract field names (the schemas' output). */
export type ContractInput = Record<string, unknown>;

/**
 * Strapi attribute values to write, the notes made while building them, and the attributes each
 * contract field is written to (none when its value was left as it was).
 */
export type WriteResult = {
  data: Record<string, unknown>;
  notes: string[];
  attributesOf: Record<string, string[]>;
};

/** A file entity of Strapi's upload plugin (`plugin::upload.file`), as stored in the Media Library. */
export type UploadedFile = {
  id: number;
  documentId: string;
  name: string;
  alternativeText: string | null;
  caption: string | null;
  width: number | null;
  height: number | null;
  hash: string;
  ext: string;
  mime: string;
  size: number;
  url: string;
  provider: string;
  createdAt: string;
  updatedAt: string;
  [attribute: string]: unknown;
};

/** An image of a request: the file it became, or why it did not (`overLimit`: past media.maxInlineImages). */
export type MediaResult =
  | { ok: true; file: UploadedFile; reused: boolean }
  | { ok: false; reason: string; overLimit?: true };

/** The request's images by source URL; it lives exactly as long as the request. */
export type MediaMap = Map<string, MediaResult>;

/** An entity response with the notes the write made (fields cut, images left out, ...). */
export type EntityResult = EntityResponse & { notes: string[] };

/** What an update does about the editor's changes it meets, decided before it writes. */
export type EditorChangeDecision = {
  /** The sent fields an editor changed since the platform last sent them. */
  changed: string[];
  /** The site's policy as it applies to this type (`draft` needs draft & publish). */
  policy: EditorChangePolicy;
  /** The input to write: without the changed fields when the editor's values are kept. */
  input: ContractInput;
  /** What the update reads of the stored document: the kept fingerprints and its draft's values. */
  kept: Fingerprints;
  stored: Record<string, unknown> | null;
  /** Says what happened, for the activity log and the server log; none when nothing was changed. */
  note?: string;
};
