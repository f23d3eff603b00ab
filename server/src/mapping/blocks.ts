/**
 * Strapi 5's Blocks value: the node shapes the Content Manager's Blocks editor produces and core's
 * blocks validator (`@strapi/core` entity-validator/blocks-validator) accepts, and what builds,
 * normalises and reads them. No HTML here: converters (`html-to-blocks`) make these nodes.
 */

export type Mark = 'bold' | 'italic' | 'underline' | 'strikethrough' | 'code';

export interface TextNode {
  type: 'text';
  text: string;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strikethrough?: boolean;
  code?: boolean;
}

export interface LinkNode {
  type: 'link';
  url: string;
  children: TextNode[];
}

export type InlineNode = TextNode | LinkNode;

export interface ParagraphNode {
  type: 'paragraph';
  children: InlineNode[];
}

export interface HeadingNode {
  type: 'heading';
  level: 1 | 2 | 3 | 4 | 5 | 6;
  children: InlineNode[];
}

export interface QuoteNode {
  type: 'quote';
  children: InlineNode[];
}

export interface CodeNode {
  type: 'code';
  language?: string;
  children: TextNode[];
}

export interface ListItemNode {
  type: 'list-item';
  children: InlineNode[];
}

export interface ListNode {
  type: 'list';
  format: 'ordered' | 'unordered';
  /** Set on nested lists only, as the editor does when an item is indented. */
  indentLevel?: number;
  children: Array<ListItemNode | ListNode>;
}

/** The media fields an image block carries; a Strapi upload file object fits here as is. */
export interface BlocksImage {
  url: string;
  alternativeText?: string | null;
  caption?: string | null;
  width?: number | null;
  height?: number | null;
  [field: string]: unknown;
}

export interface ImageNode {
  type: 'image';
  image: BlocksImage;
  children: [{ type: 'text'; text: '' }];
}

export type BlockNode = ParagraphNode | HeadingNode | QuoteNode | CodeNode | ListNode | ImageNode;

export type Marks = Partial<Record<Mark, true>>;

/** A text leaf carrying `marks` (a Blocks leaf lists each mark it has as `true`). */
export function textLeaf(text: string, marks: Marks): TextNode {
  return { type: 'text', text, ...marks };
}

/** Blocks nodes hold at least one child: an empty one holds an empty text leaf. */
export function orEmptyText<T extends InlineNode>(children: T[]): Array<T | TextNode> {
  return children.length > 0 ? children : [{ type: 'text', text: '' }];
}

/** Drops empty leaves and merges neighbours with the same marks, as the editor's normalisation does. */
export function compactInlines(inlines: readonly InlineNode[]): InlineNode[] {
  const compacted: InlineNode[] = [];
  for (const node of inlines) {
    if (node.type === 'link')
      compacted.push({ ...node, children: orEmptyText(compactLeaves(node.children)) });
    else appendLeaf(compacted, node);
  }
  return compacted;
}

function compactLeaves(leaves: readonly TextNode[]): TextNode[] {
  const compacted: TextNode[] = [];
  leaves.forEach((leaf) => appendLeaf(compacted, leaf));
  return compacted;
}

function appendLeaf(target: InlineNode[], leaf: TextNode): void {
  if (leaf.text === '') return;
  const last = target[target.length - 1];
  if (last?.type === 'text' && haveSameMarks(last, leaf))
    target[target.length - 1] = { ...last, text: last.text + leaf.text };
  else target.push(leaf);
}

function haveSameMarks(a: TextNode, b: TextNode): boolean {
  return (['bold', 'italic', 'underline', 'strikethrough', 'code'] as const).every(
    (mark) => a[mark] === b[mark]
  );
}

/** Paragraphs as one run of inlines, a line break between each, as the editor writes a list item of several lines. */
export function joinLines(paragraphs: readonly ParagraphNode[]): InlineNode[] {
  const lines = paragraphs.flatMap((block, index) =>
    index === 0 ? block.children : [textLeaf('\n', {}), ...block.children]
  );
  return orEmptyText(compactInlines(lines));
}

/** Core's blocks validator rejects the whole entry when a link uses any other protocol. */
const LINK_PROTOCOLS = new Set(['http:', 'https:', 'ftp:', 'mailto:', 'tel:']);

export function isLinkStrapiAccepts(url: string): boolean {
  try {
    // Same check as core's blocks validator, including its placeholder origin for root-relative paths.
    return LINK_PROTOCOLS.has(new URL(url.startsWith('/') ? `https://strapi.io${url}` : url).protocol);
  } catch {
    return false;
  }
}

/** Block texts separated by blank lines; list items one per line; images carry no text. */
export function blocksToPlainText(blocks: readonly BlockNode[]): string {
  return blocks
    .map(blockText)
    .filter((text) => text !== '')
    .join('\n\n');
}

function blockText(block: BlockNode): string {
  switch (block.type) {
    case 'image':
      return '';
    case 'list':
      return block.children
        .map((child) => (child.type === 'list' ? blockText(child) : inlineText(child.children)))
        .join('\n');
    default:
      return inlineText(block.children);
  }
}

/** The text of inline nodes, links' text included. */
export function inlineText(nodes: readonly InlineNode[]): string {
  return nodes.map((node) => (node.type === 'link' ? inlineText(node.children) : node.text)).join('');
}
