/** Where a bench process draws its heap layout (docs/compare.md, "Layout"). */
import { describe, expect, test } from "bun:test";
import { layoutDraw } from "../../src/compare/rounds/layout.ts";

describe("layoutDraw", () => {
  test("a duet of two different builds draws a layout before each side loads", () => {
    expect(layoutDraw("duet", () => true, undefined)).toBe("side");
  });

  test("a duet of identical code keeps one shared layout (the order of sides cancels it)", () => {
    expect(layoutDraw("duet", () => false, undefined)).toBe("none");
  });

  test("one side per process draws once, before anything loads, whatever the code", () => {
    let asked = false;
    expect(
      layoutDraw(
        "isolated",
        () => {
          asked = true;
          return false;
        },
        undefined,
      ),
    ).toBe("process");
    expect(asked).toBe(false);
  });

  test("XBENCH_LAYOUT=fixed draws nothing; an inventory measures nothing", () => {
    expect(layoutDraw("duet", () => true, "fixed")).toBe("none");
    expect(layoutDraw("isolated", () => true, "fixed")).toBe("none");
    expect(layoutDraw("inventory", () => true, undefined)).toBe("none");
  });
});
