import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import pkg from "../../package.json" with { type: "json" };
import { expand, readYaml, stepsOf } from "../support/actions.ts";
import { fakePullRequest, pullRequestEnv } from "../support/github.ts";
import { createRepo, workFiles, type TestRepo } from "../support/repo.ts";
import { ROOT, tempDir } from "../support/xbench.ts";

const RELEASE = join(ROOT, "dist", "release");
const TOKEN = "ghs_actionSECRET1122334455";
const HOST_TARGET = `${process.platform}-${process.arch}`; // CI and development machines: glibc Linux
const ARCHIVE = `xbench-${pkg.version}-${HOST_TARGET}.tar.gz`;
const { dir: work, cleanup } = tempDir("xbench-release-");

/** Serves a release folder as GitHub does: <base>/latest/download/F and <base>/download/v<version>/F. */
function releaseServer() {
  const state = { dir: RELEASE, requests: [] as string[] };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      state.requests.push(path);
      // /mirror/F: a company mirror that is a plain copy of dist/release (a flat folder).
      const flat = /^\/mirror\/([^/]+)$/.exec(path);
      const match = /^\/releases\/(?:latest\/download|download\/v([^/]+))\/([^/]+)$/.exec(path);
      if (!flat && (!match || (match[1] !== undefined && match[1] !== pkg.version))) return new Response("not found", { status: 404 });
      const file = join(state.dir, flat ? flat[1]! : match![2]!);
      return existsSync(file) ? new Response(Bun.file(file)) : new Response("not found", { status: 404 });
    },
  });
  return { server, state, base: `http://127.0.0.1:${server.port}/releases`, mirror: `http://127.0.0.1:${server.port}/mirror` };
}

let gh: ReturnType<typeof releaseServer>;
beforeAll(() => {
  // Only this machine's target: all six take minutes and over 100 MB each.
  const build = spawnSync(join(ROOT, "node_modules", ".bin", "bun"), ["build.ts", "--release", "--target", "host"], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 300_000,
  });
  if (build.status !== 0) throw new Error(`bun build.ts --release failed:\n${build.stderr}`);
  gh = releaseServer();
}, 300_000);
afterAll(() => {
  gh?.server.stop(true);
  cleanup();
});

/** Runs a command without blocking this process, which serves the release it downloads. */
async function runAsync(cmd: string[], env: Record<string, string>) {
  const child = Bun.spawn(cmd, { env, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill(), 120_000);
  const [stdout, stderr, status] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { status, stdout, stderr };
}

async function install(name: string, options: { args?: string[]; env?: Record<string, string> } = {}) {
  const home = join(work, name);
  mkdirSync(home, { recursive: true });
  const r = await runAsync(["dash", join(ROOT, "install.sh"), ...(options.args ?? [])], {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    XBENCH_DOWNLOAD_URL: gh.base,
    ...options.env,
  });
  return { ...r, home, bin: join(home, ".local", "bin", "xbench") };
}

describe("bun build.ts --release", () => {
  test("writes the host archive (binary, README, LICENSE) and a SHA256SUMS that checks", () => {
    expect(readdirSync(RELEASE).sort()).toEqual(["SHA256SUMS", ARCHIVE]);
    const listing = spawnSync("tar", ["-tzf", join(RELEASE, ARCHIVE)], { encoding: "utf8" })
      .stdout.split("\n")
      .filter(Boolean)
      .sort();
    const folder = ARCHIVE.replace(/\.tar\.gz$/, "");
    expect(listing).toEqual([`${folder}/`, `${folder}/LICENSE`, `${folder}/README.md`, `${folder}/xbench`]);
    const check = spawnSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: RELEASE, encoding: "utf8" });
    expect(check.stdout).toBe(`${ARCHIVE}: OK\n`);
  });
});

describe("install.sh against a local release server", () => {
  test("installs the latest release into ~/.local/bin; the binary says its version, commit and target", async () => {
    const r = await install("latest");
    expect(r.stderr).toContain(`downloading ${ARCHIVE}\nxbench-install: verified SHA-256 of ${ARCHIVE}\n`);
    expect(r.stderr).toContain('add it to PATH: export PATH="');
    expect(r.status).toBe(0);
    const version = spawnSync(r.bin, ["--version", "--verbose"], { encoding: "utf8", env: { HOME: r.home } });
    expect(version.status).toBe(0);
    const lines = version.stdout.split("\n");
    expect(lines[0]).toBe(`xbench ${pkg.version}`);
    expect(lines).toContain(`target   ${HOST_TARGET}`);
    const commit = spawnSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
    expect(version.stdout).toMatch(new RegExp(`^commit   ${commit}(-dirty)?$`, "m"));
    expect(version.stdout).toMatch(/^built {4}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    expect(version.stdout).toMatch(new RegExp(`^bun      ${Bun.version.replace(/\./g, "\\.")}$`, "m"));
  });

  test("a pinned version (v prefix or not) goes to $XBENCH_INSTALL; an unknown one fails in one line", async () => {
    const dest = join(work, "pinned-bin");
    const r = await install("pinned", { args: [`v${pkg.version}`], env: { XBENCH_INSTALL: dest } });
    expect(r.status).toBe(0);
    expect(gh.state.requests).toContain(`/releases/download/v${pkg.version}/${ARCHIVE}`);
    expect(spawnSync(join(dest, "xbench"), ["--version"], { encoding: "utf8" }).stdout).toBe(`${pkg.version}\n`);
    const missing = await install("missing", { env: { XBENCH_VERSION: "9.9.9" } });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(`xbench-install: no release 9.9.9 at ${gh.base}\n`);
  });

  test("a flat folder (a plain copy of dist/release) works too: a mirror over HTTP, a folder by file://", async () => {
    for (const [name, base] of [
      ["mirror", gh.mirror],
      ["air-gapped", `file://${RELEASE}`],
    ] as const) {
      for (const args of [[], [pkg.version]]) {
        const r = await install(`${name}-${args.length}`, { args, env: { XBENCH_DOWNLOAD_URL: base } });
        expect(r.stderr).toContain(`xbench-install: verified SHA-256 of ${ARCHIVE}\n`);
        expect(r.status).toBe(0);
        expect(spawnSync(r.bin, ["--version"], { encoding: "utf8" }).stdout).toBe(`${pkg.version}\n`);
      }
      const missing = await install(`${name}-missing`, { args: ["9.9.9"], env: { XBENCH_DOWNLOAD_URL: base } });
      expect(missing.stderr).toBe(`xbench-install: no release 9.9.9 at ${base}\n`);
      expect(missing.status).toBe(1);
    }
    const empty = await install("empty-mirror", { env: { XBENCH_DOWNLOAD_URL: `file://${join(work, "no-such-folder")}` } });
    expect(empty.stderr).toBe(
      `xbench-install: no release at file://${join(work, "no-such-folder")} (neither latest/download/SHA256SUMS nor SHA256SUMS there)\n`,
    );
    expect(gh.state.requests).toContain(`/mirror/${ARCHIVE}`);
  }, 120_000);

  test("a corrupted archive is refused and nothing is installed", async () => {
    const bad = join(work, "corrupt-release");
    mkdirSync(bad);
    copyFileSync(join(RELEASE, "SHA256SUMS"), join(bad, "SHA256SUMS"));
    const bytes = readFileSync(join(RELEASE, ARCHIVE));
    const middle = bytes.length >> 1;
    bytes[middle] = bytes[middle]! ^ 0xff;
    writeFileSync(join(bad, ARCHIVE), bytes);
    gh.state.dir = bad;
    try {
      const r = await install("corrupt");
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split("\n").pop()).toMatch(
        new RegExp(
          `^xbench-install: checksum mismatch for ${ARCHIVE.replace(/\./g, "\\.")} \\(expected [0-9a-f]{64}, got [0-9a-f]{64}\\); nothing installed$`,
        ),
      );
      expect(existsSync(join(r.home, ".local"))).toBe(false);
    } finally {
      gh.state.dir = RELEASE;
    }
  });

  test("an unknown platform is refused in one line before any download", async () => {
    const fake = join(work, "fake-uname");
    mkdirSync(fake);
    writeFileSync(join(fake, "uname"), '#!/bin/sh\ncase "$1" in -s) echo SunOS ;; -m) echo sparc64 ;; esac\n');
    chmodSync(join(fake, "uname"), 0o755);
    const before = gh.state.requests.length;
    const r = await install("sunos", { env: { PATH: `${fake}:/usr/bin:/bin` } });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("xbench-install: no xbench release for this platform (SunOS sparc64); see the README for building from source\n");
    expect(gh.state.requests.length).toBe(before);
  });

  test("a musl Linux is told apart from glibc (getconf and ldd) and asks for the musl archive", async () => {
    const fake = join(work, "fake-musl");
    mkdirSync(fake);
    writeFileSync(join(fake, "getconf"), "#!/bin/sh\nexit 1\n");
    writeFileSync(join(fake, "ldd"), '#!/bin/sh\necho "musl libc (x86_64)"\n');
    for (const tool of ["getconf", "ldd"]) chmodSync(join(fake, tool), 0o755);
    const r = await install("musl", { env: { PATH: `${fake}:/usr/bin:/bin` } });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`xbench-install: release latest has no archive for ${HOST_TARGET}-musl\n`);
  });
});

describe("action.yml", () => {
  test("its install step installs the pinned release, adds it to PATH, and reuses it on the next run", async () => {
    const step = stepsOf(join(ROOT, "action.yml")).find((s) => s.id === "install")!;
    const inputs = readYaml<{ inputs: Record<string, { default?: string }> }>(join(ROOT, "action.yml")).inputs;
    const values: Record<string, string> = {
      "inputs.version": pkg.version,
      "inputs.download-url": gh.base,
      "github.action_repository": "",
    };
    expect(inputs.version!.default).toBe("latest");
    const home = join(work, "runner");
    mkdirSync(home);
    const githubPath = join(work, "github-path");
    // As the runner does for `shell: sh`: sh -e with the step's env, expressions expanded.
    const run = () =>
      runAsync(["sh", "-e", "-c", step.run!], {
        PATH: "/usr/local/bin:/usr/bin:/bin",
        HOME: home,
        GITHUB_ACTION_PATH: ROOT,
        GITHUB_PATH: githubPath,
        ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, values)])),
      });
    expect(step.shell).toBe("sh");
    const first = await run();
    expect(first.status).toBe(0);
    const dir = join(home, ".xbench", "bin", pkg.version);
    expect(readFileSync(githubPath, "utf8")).toBe(`${dir}\n`);
    const verbose = spawnSync(join(dir, "xbench"), ["version"], { encoding: "utf8" });
    expect(verbose.stdout).toContain(`target   ${HOST_TARGET}`);
    const downloads = gh.state.requests.length;
    const second = await run();
    expect(second.status).toBe(0);
    expect(second.stdout).toContain(`xbench ${pkg.version} from the cache`);
    expect(gh.state.requests.length).toBe(downloads);
  });

  /**
   * Runs the compare step as the runner would (`sh -e`, its env with expressions expanded from
   * the action's defaults and `inputs`) in `project`, against PR 3's fake API.
   */
  async function runCompareStep(project: TestRepo, api: ReturnType<typeof fakePullRequest>, inputs: Record<string, string>) {
    const dir = join(work, "runner", ".xbench", "bin", pkg.version); // installed by the first test
    expect(existsSync(join(dir, "xbench"))).toBe(true);
    const step = stepsOf(join(ROOT, "action.yml")).find((s) => s.name === "Compare base and head")!;
    const defaults = readYaml<{ inputs: Record<string, { default?: string }> }>(join(ROOT, "action.yml")).inputs;
    const values: Record<string, string> = {
      ...Object.fromEntries(Object.entries(defaults).map(([name, input]) => [`inputs.${name}`, input.default ?? ""])),
      "inputs.token": TOKEN,
      ...Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`inputs.${name}`, value])),
    };
    const output = join(work, `github-output-${Date.now()}`);
    writeFileSync(output, "");
    const env = {
      ...pullRequestEnv({
        api: api.url,
        repository: "acme/widgets",
        number: 3,
        token: "",
        dir: work,
        summary: join(work, "action-summary.md"),
      }),
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, values)])),
      GITHUB_OUTPUT: output,
      PATH: `${dir}:/usr/local/bin:/usr/bin:/bin`, // what the install step's GITHUB_PATH line gives later steps
    };
    const child = Bun.spawn(["sh", "-e", "-c", step.run!], { cwd: project.dir, env, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, status] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    return { stdout, stderr, status, outputs: readFileSync(output, "utf8") };
  }

  test("its compare step runs the installed xbench with the inputs: markdown written, sticky comment posted", async () => {
    const project = createRepo();
    const api = fakePullRequest({ token: TOKEN, repository: "acme/widgets", number: 3 });
    try {
      project.write(workFiles("a.bench.ts", [{ label: "a", work: 200 }]));
      project.commit("bench");
      const markdown = join(work, "action-report.md");
      const r = await runCompareStep(project, api, { base: "HEAD", rounds: "6", filter: "a.bench", markdown });
      expect(r.stderr).toContain("PR comment created");
      expect(r.status).toBe(0);
      expect(r.stdout).toContain("runtime node | rounds 6");
      expect(r.outputs).toBe(""); // no gate asked for: no outcome
      expect(readFileSync(markdown, "utf8")).toContain("<!-- xbench-compare -->");
      expect(api.comments.filter((c) => c.body.includes("<!-- xbench-compare -->"))).toHaveLength(1);
      expect(`${r.stdout}${r.stderr}`).not.toContain(TOKEN);
    } finally {
      api.server.stop(true);
      project.cleanup();
    }
  }, 120_000);

  test("a failed gate fails the step after the comment is posted; bench, build, isolate and holm reach xbench; outcome set", async () => {
    const project = createRepo();
    const api = fakePullRequest({ token: TOKEN, repository: "acme/widgets", number: 3 });
    try {
      // A suite not named *.bench.*, found only through the bench input; head does twice the work.
      project.write(workFiles("perf/suite.ts", [{ label: "s", work: 20000 }]));
      project.commit("suite");
      project.write(workFiles("perf/suite.ts", [{ label: "s", work: 40000 }]));
      project.commit("twice the work");
      const markdown = join(work, "action-gate.md");
      const inputs = {
        base: "HEAD~1",
        rounds: "6",
        markdown,
        bench: "perf/suite.ts\n",
        build: "touch built",
        isolate: "true",
        holm: "true",
      };
      const failed = await runCompareStep(project, api, { ...inputs, "fail-above": "10" });
      expect(failed.status).toBe(1);
      expect(failed.stdout).toStartWith("gate failed (--fail-above 10): 1 row confidently more than 10% slower\n");
      expect(failed.outputs).toBe("outcome=fail\n");
      expect(failed.stderr).toContain("PR comment created");
      const comment = api.comments.find((c) => c.body.includes("<!-- xbench-compare -->"))!;
      expect(comment.body).toContain("**xbench gate: failed** (--fail-above 10)");
      expect(comment.body).toContain("intervals and verdicts Holm-adjusted");
      expect(comment.body).toContain("measured one side per bench process");
      expect(readFileSync(markdown, "utf8")).toBe(comment.body);
      const passed = await runCompareStep(project, api, { ...inputs, "fail-on": "", "fail-above": "500", "min-effect": "1000" });
      expect(passed.status).toBe(0);
      expect(passed.outputs).toBe("outcome=pass\n");
      expect(passed.stderr).toContain("PR comment updated");
      expect(readFileSync(markdown, "utf8")).toContain("0 slower, 1 same"); // the min-effect input reached compare
    } finally {
      api.server.stop(true);
      project.cleanup();
    }
  }, 240_000);

  test("sharded as bench-sharded.yml runs it: two shard jobs write JSON and post nothing, the merge job posts one comment", async () => {
    const project = createRepo();
    const api = fakePullRequest({ token: TOKEN, repository: "acme/widgets", number: 3 });
    const shards = join(work, "shards");
    mkdirSync(shards, { recursive: true });
    try {
      project.write({
        ...workFiles("a.bench.ts", [{ label: "a", work: 200 }]),
        ...workFiles("sub/b.bench.ts", [{ label: "b", work: 300 }]),
      });
      project.commit("two bench files");
      for (const shard of ["1/2", "2/2"]) {
        const r = await runCompareStep(project, api, {
          base: "HEAD",
          rounds: "6",
          shard,
          json: join(shards, `shard-${shard[0]}.json`),
          comment: "false",
          markdown: join(work, `shard-${shard[0]}.md`),
        });
        expect(r.status).toBe(0);
        expect(r.stdout).toContain(`shard ${shard[0]} of 2`);
      }
      expect(api.comments.filter((c) => c.body.includes("<!-- xbench-compare -->"))).toHaveLength(0);
      const merged = await runCompareStep(project, api, { merge: join(shards, "*.json"), "fail-above": "500" });
      expect(merged.stderr).toContain("PR comment created");
      expect(merged.status).toBe(0);
      expect(merged.outputs).toBe("outcome=pass\n");
      const comments = api.comments.filter((c) => c.body.includes("<!-- xbench-compare -->"));
      expect(comments).toHaveLength(1);
      expect(comments[0]!.body).toContain("merged from 2 shards");
      // Both files' rows, each measured by one shard.
      expect(comments[0]!.body).toContain("a.bench.ts › a |");
      expect(comments[0]!.body).toContain("b.bench.ts › b |");
    } finally {
      api.server.stop(true);
      project.cleanup();
    }
  }, 240_000);
});
