import { appendFileSync, readFileSync } from "node:fs";
import { ofetch } from "ofetch";
import { XbenchError } from "../errors.ts";

/** What the sticky comment needs from a GitHub Actions job. */
export interface PullRequestTarget {
  api: string;
  repository: string;
  number: number;
  token: string;
}

/** Appends the report to the job summary when running on GitHub Actions. */
export function writeJobSummary(markdown: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  appendFileSync(file, `${markdown}\n`);
  return true;
}

/**
 * Sets a step output (`steps.<id>.outputs.<name>`) when running on GitHub Actions, as the
 * runner reads them: one `name=value` line appended to $GITHUB_OUTPUT.
 */
export function writeStepOutput(name: string, value: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const file = env.GITHUB_OUTPUT;
  if (!file) return false;
  appendFileSync(file, `${name}=${value}\n`);
  return true;
}

function pullNumber(env: NodeJS.ProcessEnv): number | undefined {
  if (env.GITHUB_EVENT_PATH) {
    try {
      const event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) as {
        pull_request?: { number?: number };
        issue?: { number?: number; pull_request?: unknown };
      };
      const n = event.pull_request?.number ?? (event.issue?.pull_request ? event.issue.number : undefined);
      if (n) return n;
    } catch {
      // Fall through to the ref.
    }
  }
  const match = /^refs\/pull\/(\d+)\//.exec(env.GITHUB_REF ?? "");
  return match ? Number(match[1]) : undefined;
}

/** Repository, pull request and token from the Actions environment; a clear error names what is missing. */
export function pullRequestTarget(env: NodeJS.ProcessEnv = process.env): PullRequestTarget {
  const token = env.GITHUB_TOKEN || env.GH_TOKEN;
  const repository = env.GITHUB_REPOSITORY;
  const number = pullNumber(env);
  const missing = [
    !token && "GITHUB_TOKEN",
    !repository && "GITHUB_REPOSITORY",
    !number && "a pull request (GITHUB_EVENT_PATH or GITHUB_REF refs/pull/N/merge)",
  ].filter(Boolean);
  if (missing.length > 0) throw new XbenchError(`--comment needs ${missing.join(", ")}; it runs on pull-request jobs of GitHub Actions`);
  return {
    api: (env.GITHUB_API_URL || "https://api.github.com").replace(/\/$/, ""),
    repository: repository!,
    number: number!,
    token: token!,
  };
}

/** Error text without the token, whatever the server echoed back. */
function redact(text: string, token: string): string {
  return token ? text.split(token).join("***") : text;
}

interface IssueComment {
  id: number;
  body?: string;
}

/** A reply that is not the JSON the call expects (a proxy's HTML page, a truncated body). */
class NotJsonError extends Error {}

/**
 * One page of comments, checked: ofetch hands back the raw text when a body does not parse,
 * and calling list methods on that would surface minified internals instead of the cause.
 */
function commentList(value: unknown, what: string): IssueComment[] {
  if (Array.isArray(value) && value.every((c) => typeof c === "object" && c !== null && typeof c.id === "number")) return value;
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  const shown = text.replace(/\s+/g, " ").trim();
  const quoted = JSON.stringify(shown.length > 40 ? `${shown.slice(0, 40)}…` : shown);
  throw new NotJsonError(
    `GitHub answered ${what} with ${quoted} (${typeof value === "string" ? "not JSON" : "JSON, but not a list of comments"})`,
  );
}

/**
 * Creates the PR's xbench comment, or updates it in place when one carrying `marker` exists,
 * so a pull request has one report that follows its latest push.
 */
export async function upsertComment(target: PullRequestTarget, marker: string, body: string): Promise<"created" | "updated"> {
  const api = ofetch.create({
    baseURL: target.api,
    headers: {
      authorization: `Bearer ${target.token}`,
      accept: "application/vnd.github+json",
      "x-github-api-version": "2022-11-28",
      "user-agent": "xbench",
    },
    retry: 1,
    timeout: 30_000,
  });
  const comments = `/repos/${target.repository}/issues/${target.number}/comments`;
  try {
    let existing: IssueComment | undefined;
    for (let page = 1; page <= 20 && !existing; page++) {
      const batch = commentList(await api<unknown>(comments, { query: { per_page: 100, page } }), `GET ${comments}`);
      existing = batch.find((c) => c.body?.includes(marker));
      if (batch.length < 100) break;
    }
    if (existing) {
      await api(`/repos/${target.repository}/issues/comments/${existing.id}`, { method: "PATCH", body: { body } });
      return "updated";
    }
    await api(comments, { method: "POST", body: { body } });
    return "created";
  } catch (error) {
    const message = redact((error as Error).message ?? String(error), target.token).split("\n")[0];
    if (error instanceof NotJsonError) throw new XbenchError(`could not post the PR comment: ${message}`);
    const status = (error as { status?: number }).status;
    throw new XbenchError(`could not post the PR comment${status ? ` (HTTP ${status})` : ""}: ${message}`);
  }
}
