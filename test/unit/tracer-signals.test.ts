/** Which signals xbench trace passes on to the command (src/tracer/signals.ts). */
import { expect, test } from "bun:test";
import { ignoredSignals, inForeground, shouldForward } from "../../src/tracer/signals.ts";

// /proc/self/stat: pid (comm) state ppid pgrp session tty_nr tpgid ...; the name may hold ") ".
const stat = (pgrp: number, tpgid: number) => `4242 (x) y) S 1 ${pgrp} ${pgrp} 34816 ${tpgid} 4194304 0 0`;

test("in the terminal's foreground group only when tpgid is this process group", () => {
  expect(inForeground(stat(4242, 4242))).toBe(true);
  expect(inForeground(stat(4242, 5000))).toBe(false); // a background job
  expect(inForeground(stat(4242, -1))).toBe(false); // no terminal
});

test("SIGTERM always goes on; the terminal's INT, QUIT and HUP only when it did not send them to the command too", () => {
  expect(shouldForward("SIGTERM", () => true)).toBe(true);
  for (const s of ["SIGINT", "SIGQUIT", "SIGHUP"] as const) {
    expect(shouldForward(s, () => true)).toBe(false);
    expect(shouldForward(s, () => false)).toBe(true);
  }
});

test("signals ignored at start (nohup: HUP; a script's &: INT and QUIT) are not sent on", () => {
  const status = (ign: string) => `Name:\txbench\nSigBlk:\t0000000000000000\nSigIgn:\t${ign}\nSigCgt:\t0000000000000000\n`;
  expect([...ignoredSignals(status("0000000000000001"))]).toEqual(["SIGHUP"]);
  expect([...ignoredSignals(status("0000000000000006"))].sort()).toEqual(["SIGINT", "SIGQUIT"]);
  expect(ignoredSignals(status("0000000001001000")).size).toBe(0); // PIPE and XFSZ: not ours
});
