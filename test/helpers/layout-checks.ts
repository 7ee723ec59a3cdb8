/**
 * What the console's layout check looks for in a rendered page (test/e2e/console/layout.test.ts),
 * measured by the browser itself: text cut off by a box that clips it (no ellipsis with a title
 * saying the whole value), controls sticking out of a clipping box, words broken across lines
 * inside headings, badges and table headers, and `pattern` attributes the browser cannot compile
 * (it compiles them with the `v` flag). Returns one line per problem found; none is a pass.
 */
import type { Page } from 'playwright-core';

/** The check, run in the page as plain script (the tests' types have no DOM). */
export const FIND_PROBLEMS = `(() => {
  const problems = [];
  const describe = (el) => {
    const id = el.id ? \`#\${el.id}\` : '';
    const cls = el.classList.length > 0 ? \`.\${[...el.classList].join('.')}\` : '';
    return \`\${el.tagName.toLowerCase()}\${id}\${cls} "\${(el.textContent ?? '').trim().slice(0, 40)}"\`;
  };
  const visible = (el) => {
    if (el.closest('.vh, [aria-hidden="true"], [hidden], template, head, dialog:not([open])')) return false;
    const rect = el.getBoundingClientRect();
    if (rect.width <= 1 || rect.height <= 1) return false;
    const style = getComputedStyle(el);
    return style.visibility !== 'hidden' && style.display !== 'none';
  };
  const ownText = (el) =>
    [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '');
  const clips = (el) => {
    const style = getComputedStyle(el);
    return style.overflowX !== 'visible';
  };
  // An ellipsis with the whole value in a title is a deliberate cut, not clipping.
  const meantToCut = (el) =>
    getComputedStyle(el).textOverflow === 'ellipsis' && el.closest('[title]') !== null;

  for (const el of document.body.querySelectorAll('*')) {
    if (!visible(el)) continue;
    const tag = el.tagName.toLowerCase();
    const control = tag === 'select' || tag === 'input' || tag === 'button' || tag === 'textarea';
    if (!ownText(el) && !control) continue;
    // 1. The element's own box cuts its text.
    if (
      !control &&
      clips(el) &&
      el.scrollWidth > el.clientWidth + 1 &&
      !meantToCut(el) &&
      getComputedStyle(el).overflowX !== 'auto'
    ) {
      problems.push(\`clipped: \${describe(el)} (\${el.scrollWidth} > \${el.clientWidth})\`);
      continue;
    }
    // 2. It sticks out of an ancestor that clips (a card, a table's scroller).
    const rect = el.getBoundingClientRect();
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (!clips(up)) continue;
      const box = up.getBoundingClientRect();
      if (rect.right > box.right + 1 || rect.left < box.left - 1) {
        if (!meantToCut(el))
          problems.push(
            \`sticks out of \${describe(up)}: \${describe(el)} (\${rect.left}-\${rect.right} in \${box.left}-\${box.right})\`,
          );
        break;
      }
    }
  }

  // 3. A word broken across lines in headings, badges and table headers.
  for (const el of document.body.querySelectorAll('h1, h2, h3, h4, h5, h6, .badge, th')) {
    if (!visible(el)) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      if (!node.parentElement || !visible(node.parentElement)) continue;
      for (const match of text.matchAll(/[^s-]+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set(
          [...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)),
        );
        if (lines.size > 1) problems.push(\`word broken in \${describe(el)}: "\${match[0]}"\`);
      }
    }
  }

  // 4. A pattern the browser cannot compile is no check at all.
  for (const input of document.querySelectorAll('input[pattern]')) {
    const pattern = input.getAttribute('pattern') ?? '';
    try {
      new RegExp(\`^(?:\${pattern})$\`, 'v');
    } catch {
      problems.push(\`pattern invalid under the v flag: \${describe(input)} \${pattern}\`);
    }
  }
  return problems;
})()`;

/** Every layout problem of the page as it is rendered now (see the file's comment). */
export const layoutProblems = (page: Page): Promise<string[]> =>
  page.evaluate(FIND_PROBLEMS) as Promise<string[]>;
