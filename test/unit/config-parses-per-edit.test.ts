/**
 * Invariant 1: with a reader on every event-loop turn, one edit parses the file as few
 * times as its design allows: the edit's own fresh read, plus (seed design) one read that
 * publishes the saved file. The store's default design publishes the object it saved and
 * gets 1; the seed's design gets exactly 2; the naive one 4.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { countParsesPerSave } from "../../src/suites/config/harness.ts";
import { createConfigStore } from "../../src/suites/config/store.ts";
import { smallFixture, type TestFixture } from "./config-support.ts";

let fx: TestFixture;
afterEach(() => fx?.remove());

describe("parses per edit with a reader on every event-loop turn", () => {
  test("the store (publish-written) parses config.json once per edit", async () => {
    fx = smallFixture();
    expect(createConfigStore(fx.path).policy).toBe("publish-written");
    const count = await countParsesPerSave(fx.path, fx.lastId, "publish-written", 5);
    expect(count).toMatchObject({ saves: 5, parses: 5, parsesPerSave: 1 });
  });

  test("the seed's design (keep-matching) parses config.json exactly twice per edit", async () => {
    fx = smallFixture();
    const count = await countParsesPerSave(fx.path, fx.lastId, "keep-matching", 5);
    expect(count).toMatchObject({ saves: 5, parses: 10, parsesPerSave: 2 });
  });

  test("the naive design (clear on every read-in-edit and save) parses 4 times per edit", async () => {
    fx = smallFixture();
    const count = await countParsesPerSave(fx.path, fx.lastId, "clear-always", 5);
    expect(count).toMatchObject({ saves: 5, parses: 20, parsesPerSave: 4 });
  });
});
