import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { createRepo, workFiles } from "../support/repo.ts";
import { ROOT, tempDir, xbenchAsync } from "../support/xbench.ts";

const TOKEN = "ghs_secretTOKEN1234567890";

interface Comment {
  id: number;
  body: string;
}

/** Plays the three GitHub REST calls the sticky comment uses, for PR 7 of acme/widgets. */
function fakeGitHub(options: { failWith?: number; answer?: () => Response } = {}) {
  const comments: Comment[] = [{ id: 1, body: "an unrelated review comment" }];
  const calls: string[] = [];
  let nextId = 100;
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      calls.push(`${req.method} ${url.pathname}`);
      if (req.headers.get("authorization") !== `Bearer ${TOKEN}`) return new Response("bad token", { status: 401 });
      if (options.failWith) return Response.json({ message: `forbidden for token ${TOKEN}` }, { status: options.failWith });
      if (options.answer) return options.answer();
      if (url.pathname === "/repos/acme/widgets/issues/7/comments" && req.method === "GET") return Response.json(comments);
      if (url.pathname === "/repos/acme/widgets/issues/7/comments" && req.method === "POST") {
        const { body } = (await req.json()) as { body: string };
        comments.push({ id: nextId++, body });
        return Response.json(comments.at(-1), { status: 201 });
      }
      const patch = /^\/repos\/acme\/widgets\/issues\/comments\/(\d+)$/.exec(url.pathname);
      if (patch && req.method === "PATCH") {
        const target = comments.find((c) => c.id === Number(patch[1]));
        if (!target) return new Response("not found", { status: 404 });
        target.body = ((await req.json()) as { body: string }).body;
        return Response.json(target);
      }
      return new Response("unexpected", { status: 400 });
    },
  });
  return { server, comments, calls, url: `http://127.0.0.1:${server.port}` };
}

const repo = createRepo();
repo.write(workFiles("g.bench.ts", [{ label: "g", work: 2000 }]));
repo.commit("base");
const { dir: work, cleanup } = tempDir();
afterAll(() => {
  repo.cleanup();
  cleanup();
});

function actionsEnv(api: string, summary: string): Record<string, string> {
  const event = join(work, "event.json");
  writeFileSync(event, JSON.stringify({ pull_request: { number: 7 } }));
  return {
    ...(process.env as Record<string, string>),
    PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}`,
    GITHUB_ACTIONS: "true",
    GITHUB_API_URL: api,
    GITHUB_REPOSITORY: "acme/widgets",
    GITHUB_EVENT_PATH: event,
    GITHUB_TOKEN: TOKEN,
    GITHUB_STEP_SUMMARY: summary,
  };
}

describe("compare on GitHub Actions", () => {
  test("one sticky comment, created then updated in place; job summary written; token never printed", async () => {
    const gh = fakeGitHub();
    try {
      const summary = join(work, "summary.md");
      const env = actionsEnv(gh.url, summary);
      const args = ["compare", "--base", "HEAD", "--rounds", "6", "--time", "20", "--comment"];
      const first = await xbenchAsync(args, { cwd: repo.dir, env });
      expect(first.code).toBe(0);
      expect(first.stderr).toContain("PR comment created");
      const second = await xbenchAsync(args, { cwd: repo.dir, env });
      expect(second.code).toBe(0);
      expect(second.stderr).toContain("PR comment updated");
      const ours = gh.comments.filter((c) => c.body.includes("<!-- xbench-compare -->"));
      expect(ours).toHaveLength(1);
      expect(ours[0]!.body).toContain("| benchmark | base | head | delta | 95% CI | verdict");
      expect(gh.comments.find((c) => c.id === 1)!.body).toBe("an unrelated review comment");
      expect(gh.calls.filter((c) => c.startsWith("POST"))).toHaveLength(1);
      expect(gh.calls.filter((c) => c.startsWith("PATCH"))).toHaveLength(1);
      expect(readFileSync(summary, "utf8")).toContain("g.bench.ts › g");
      for (const r of [first, second]) expect(`${r.stdout}${r.stderr}`).not.toContain(TOKEN);
    } finally {
      gh.server.stop(true);
    }
  });

  test("an API failure is one line without the token, even when the server echoes it", async () => {
    const gh = fakeGitHub({ failWith: 403 });
    try {
      const r = await xbenchAsync(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20", "--comment"], {
        cwd: repo.dir,
        env: actionsEnv(gh.url, join(work, "summary2.md")),
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^xbench: could not post the PR comment \(HTTP 403\)/m);
      expect(`${r.stdout}${r.stderr}`).not.toContain(TOKEN);
    } finally {
      gh.server.stop(true);
    }
  });

  // A proxy's login page or a truncated body: ofetch hands back the text, and list methods on
  // it used to surface minified internals (`q.find is not a function`).
  test.each([
    [
      "invalid JSON",
      () => new Response(`[{"id": 1, "body": "cut off by ${TOKEN}`, { headers: { "content-type": "application/json" } }),
      /\(not JSON\)$/,
    ],
    [
      "an HTML page",
      () => new Response("<html><body>Sign in</body></html>", { headers: { "content-type": "text/html" } }),
      /\(not JSON\)$/,
    ],
    ["JSON that is not a list", () => Response.json({ message: "ok" }), /\(JSON, but not a list of comments\)$/],
  ] as const)("GitHub answering %s: one line naming the call, no token, no internals", async (_, answer, ending) => {
    const gh = fakeGitHub({ answer });
    try {
      const r = await xbenchAsync(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20", "--comment"], {
        cwd: repo.dir,
        env: actionsEnv(gh.url, join(work, "summary3.md")),
      });
      expect(r.code).toBe(1);
      const lines = r.stderr.split("\n").filter((l) => l.startsWith("xbench: "));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^xbench: could not post the PR comment: GitHub answered GET \/repos\/acme\/widgets\/issues\/7\/comments with ".*"/,
      );
      expect(lines[0]).toMatch(ending);
      expect(r.stderr).not.toContain("is not a function");
      expect(r.stderr).not.toContain("    at ");
      expect(`${r.stdout}${r.stderr}`).not.toContain(TOKEN);
    } finally {
      gh.server.stop(true);
    }
  });

  test("--comment outside a pull-request job says what is missing", async () => {
    const env: Record<string, string | undefined> = { ...process.env, PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}` };
    delete env.GITHUB_TOKEN;
    delete env.GITHUB_REPOSITORY;
    const r = await xbenchAsync(["compare", "--base", "HEAD", "--rounds", "6", "--time", "20", "--comment"], { cwd: repo.dir, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^xbench: --comment needs GITHUB_TOKEN, GITHUB_REPOSITORY/m);
  });
});
