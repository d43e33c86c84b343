/**
 * The documentation a newcomer reads first: the README stays short (the long material lives in docs/), and
 * every relative link in README.md, CHANGELOG.md and docs/*.md points at a file that exists, and a `#fragment`
 * at a heading of the linked Markdown file (GitHub's anchor for it).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '../../..');
const README_LIMIT = 12_288;

const documents = ['README.md', 'CHANGELOG.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The text without fenced code blocks and inline code, where brackets are not links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Link targets of `[text](target)` and `[text](target "title")`. */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2 … */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = match[1]!.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

describe('documentation', () => {
  it(`README.md is at most ${README_LIMIT} bytes (long material belongs in docs/)`, () => {
    const bytes = statSync(join(ROOT, 'README.md')).size;
    assert.ok(bytes <= README_LIMIT, `README.md is ${bytes} bytes; move sections into docs/ and link them`);
  });

  it('anchors are computed as GitHub computes them', () => {
    const anchors = headingAnchors('# A: b (C)\n## 2026-11-26 — x, y\n```\n# not a heading\n```\n## A: b (C)\n### `code` and [link](x.md)\n');
    assert.deepEqual([...anchors], ['a-b-c', '2026-11-26--x-y', 'a-b-c-1', 'code-and-link']);
    assert.deepEqual(linkTargets('[a](x.md) `[b](y.md)` [c](https://e.org) [d](z.md#h "t")\n```\n[e](w.md)\n```\n'), ['x.md', 'https://e.org', 'z.md#h']);
  });

  for (const doc of documents) {
    it(`every relative link in ${doc} points at an existing file (and heading)`, () => {
      const source = join(ROOT, doc);
      const broken: string[] = [];
      for (const target of linkTargets(readFileSync(source, 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
        const [path = '', fragment] = target.split('#', 2);
        const file = path === '' ? source : resolve(dirname(source), decodeURIComponent(path));
        if (!file.startsWith(ROOT) || !existsSync(file)) {
          broken.push(`${target}: no file ${relative(ROOT, file)}`);
          continue;
        }
        if (fragment !== undefined && file.endsWith('.md') && !headingAnchors(readFileSync(file, 'utf8')).has(fragment)) {
          broken.push(`${target}: no heading #${fragment} in ${relative(ROOT, file)}`);
        }
      }
      assert.deepEqual(broken, [], `broken links in ${doc}`);
    });
  }
});
