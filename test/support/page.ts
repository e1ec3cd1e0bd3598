/**
 * The little of the DOM the browser tests' page functions use. tsconfig has no "dom" lib, and a
 * `/// <reference lib="dom" />` in a test would make `document` type-check in src/ too.
 */
export interface PageElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { x: number; width: number };
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement> & { length: number };
}
/** The page's `document`, typed as the above; written out in each page function, which runs in the page without the test module's scope. */
export type PageGlobal = { document: PageElement };
