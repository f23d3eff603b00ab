import { DomUtils, parseDocument } from 'htmlparser2';
import type { BlockNode, InlineNode, ListNode } from '../../server/src/mapping/blocks';

/**
 * The visible characters of HTML and of the Blocks made of it, in reading order and without
 * whitespace, read independently of the converter: equal when no text was lost or reordered.
 */
export const visibleTextOfHtml = (html: string) =>
  DomUtils.textContent(parseDocument(html)).replace(/\s+/g, '');

/**
 * The blocks' text and image captions, and the text of the HTML kept verbatim in `html` code
 * blocks. Kept HTML is found in the source as it is, while the text of a
 * `<pre><code class="language-html">` was decoded (`&lt;` became `<`), so it is not.
 */
export function visibleTextOfBlocks(blocks: BlockNode[], sourceHtml: string): string {
  const inline = (nodes: InlineNode[]): string =>
    nodes.map((node) => (node.type === 'link' ? inline(node.children) : node.text)).join('');
  const list = (node: ListNode): string =>
    node.children.map((child) => (child.type === 'list' ? list(child) : inline(child.children))).join('');
  const block = (node: BlockNode): string => {
    if (node.type === 'image') return node.image.caption ?? '';
    if (node.type === 'list') return list(node);
    const text = inline(node.children);
    const keptHtml = node.type === 'code' && node.language === 'html' && sourceHtml.includes(text);
    return keptHtml ? visibleTextOfHtml(text) : text;
  };
  return blocks.map(block).join('').replace(/\s+/g, '');
}
