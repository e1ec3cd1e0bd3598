import { writeFileSync } from "node:fs";
import { join } from "pathe";
import { ROOT } from "./xbench.ts";

/** A stand-in for the GitHub REST calls of the sticky PR comments, one pull request deep. */
export interface FakeComment {
  id: number;
  body: string;
}

/**
 * Serves list, create and update of issue comments for PR `number` of `repository`, checking
 * the bearer token; `failWith` answers every call with that status and the token echoed back.
 */
export function fakePullRequest(options: { token: string; repository: string; number: number; failWith?: number }) {
  const comments: FakeComment[] = [{ id: 1, body: "an unrelated review comment" }];
  const calls: string[] = [];
  let nextId = 100;
  const list = `/repos/${options.repository}/issues/${options.number}/comments`;
  const one = new RegExp(`^/repos/${options.repository}/issues/comments/(\\d+)$`);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      calls.push(`${req.method} ${url.pathname}`);
      if (req.headers.get("authorization") !== `Bearer ${options.token}`) return new Response("bad token", { status: 401 });
      if (options.failWith) return Response.json({ message: `refused for ${options.token}` }, { status: options.failWith });
      if (url.pathname === list && req.method === "GET") return Response.json(comments);
      if (url.pathname === list && req.method === "POST") {
        comments.push({ id: nextId++, body: ((await req.json()) as { body: string }).body });
        return Response.json(comments.at(-1), { status: 201 });
      }
      const match = one.exec(url.pathname);
      const target = match && comments.find((c) => c.id === Number(match[1]));
      if (target && req.method === "PATCH") {
        target.body = ((await req.json()) as { body: string }).body;
        return Response.json(target);
      }
      return new Response("unexpected", { status: 400 });
    },
  });
  return { server, comments, calls, url: `http://127.0.0.1:${server.port}` };
}

/** The environment of a pull-request job for PR `number` of `repository`, its API at `api`. */
export function pullRequestEnv(options: {
  api: string;
  repository: string;
  number: number;
  token: string;
  dir: string;
  summary: string;
}): Record<string, string> {
  const event = join(options.dir, `event-${options.number}.json`);
  writeFileSync(event, JSON.stringify({ pull_request: { number: options.number } }));
  return {
    ...(process.env as Record<string, string>),
    PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}`,
    GITHUB_ACTIONS: "true",
    GITHUB_API_URL: options.api,
    GITHUB_REPOSITORY: options.repository,
    GITHUB_EVENT_PATH: event,
    GITHUB_TOKEN: options.token,
    GITHUB_STEP_SUMMARY: options.summary,
  };
}
