/** The strace oracle's own reading of strace's lines (test/support/trace-strace.ts). */
import { describe, expect, test } from "bun:test";
import { classify, subtree } from "../support/trace-strace.ts";

const modes = (log: string) => Object.fromEntries([...classify(log, "/top").modes].map(([p, m]) => [p, [...m].sort()]));

describe("strace lines as xbench's modes", () => {
  test("an O_TMPFILE open writes a file into the folder and reads nothing", () => {
    expect(modes('1 openat(AT_FDCWD</top>, ".", O_RDWR|O_TMPFILE, 0600) = 3</top/#123 (deleted)>')).toEqual({ "/top": ["write"] });
  });

  test("RESOLVE_IN_ROOT starts an absolute path at the dirfd", () => {
    const log = '1 openat2(3</top/sub>, "/in", {flags=O_RDONLY|O_CLOEXEC, resolve=RESOLVE_IN_ROOT}, 24) = 4</top/sub/in>';
    expect(modes(log)).toEqual({ "/top/sub/in": ["read"] });
  });

  test("a CLONE_FS child's chdir moves its parent; unshare(CLONE_FS) gives a thread its own cwd", () => {
    const shared = [
      "1 clone3({flags=CLONE_FS, exit_signal=SIGCHLD, stack=NULL, stack_size=0}, 88) = 2",
      '2 chdir("sub") = 0',
      '1 open("z", O_RDONLY) = 3',
    ].join("\n");
    expect(modes(shared)["/top/sub/z"]).toEqual(["read"]);
    const own = [
      "1 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD, exit_signal=0}, 88) = 2",
      "2 unshare(CLONE_FS) = 0",
      '2 chdir("sub") = 0',
      '1 open("y", O_RDONLY) = 3',
      '2 open("x", O_RDONLY) = 4',
    ].join("\n");
    expect(modes(own)).toMatchObject({ "/top/y": ["read"], "/top/sub/x": ["read"] });
    const apart = ["1 clone(child_stack=NULL, flags=SIGCHLD) = 2", '2 chdir("sub") = 0', '1 open("y", O_RDONLY) = 3'].join("\n");
    expect(modes(apart)["/top/y"]).toEqual(["read"]);
  });

  test("a watched tracer's log keeps the command's tree, from its execve on, and nothing of the tracer", () => {
    const log = [
      '10 openat(AT_FDCWD, "/tracer/own", O_RDONLY) = 3',
      "10 clone(child_stack=NULL, flags=SIGCHLD) = 11",
      '11 openat(AT_FDCWD, "/before/exec", O_RDONLY) = 3',
      '11 execve("/usr/local/bin/sh", ["sh", "-c", "x"], 0x1 /* 3 vars */) = -1 ENOENT (No such file or directory)',
      '11 execve("/usr/bin/sh", ["sh", "-c", "x"], 0x1 /* 3 vars */) = 0',
      '12 openat(AT_FDCWD, "/child/first", O_RDONLY) = 3', // printed before its parent's clone returns
      "11 clone3({flags=CLONE_VM, exit_signal=0}, 88 <unfinished ...>",
      "11 <... clone3 resumed>) = 12",
      '13 openat(AT_FDCWD, "/tracer/thread", O_RDONLY) = 3',
      "10 clone(child_stack=NULL, flags=SIGCHLD) = 13",
    ].join("\n");
    expect(Object.keys(modes(subtree(log, "sh"))).sort()).toEqual(["/child/first", "/usr/bin/sh", "/usr/local/bin/sh"]);
    expect(() => subtree(log, "node")).toThrow("no execve of node");
  });

  test("a rename or link whose other name the kernel could not read (EFAULT) names nothing", () => {
    expect(modes('1 rename("a", 0xffffffffffffffff) = -1 EFAULT (Bad address)')).toEqual({});
    expect(modes('1 linkat(AT_FDCWD</top>, 0x1, AT_FDCWD</top>, "b", 0) = -1 EFAULT (Bad address)')).toEqual({});
    expect(modes('1 rename("a", "no/b") = -1 ENOENT (No such file or directory)')).toEqual({
      "/top/a": ["missing"],
      "/top/no/b": ["missing"],
    });
  });
});
