/**
 * Running the linux-arm64 helpers on this x86-64 machine (test/e2e/trace-arm64.test.ts):
 * the cross compiler, qemu-user, and a qemu-system VM booting Debian's arm64 cloud kernel with
 * an initramfs made here (newc cpio written below, no cpio tool needed).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "pathe";
import { ROOT } from "./xbench.ts";
import { have } from "./trace.ts";

export const ARM64_CC = "aarch64-linux-gnu-gcc";
/** Where the cross toolchain's target libraries live (the VM's ld.so and libc come from here). */
export const ARM64_SYSROOT = "/usr/aarch64-linux-gnu";
export const QEMU_USER = "qemu-aarch64-static";
export const QEMU_SYSTEM = "qemu-system-aarch64";

/** Why the qemu-user tests cannot run here, or undefined. */
export function qemuUserMissing(): string | undefined {
  if (!have(ARM64_CC)) return `${ARM64_CC} is not installed (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)`;
  if (!have(QEMU_USER)) return `${QEMU_USER} is not installed (apt-get install qemu-user-static)`;
  return undefined;
}

/** Why the VM tests cannot run here, or undefined. */
export function qemuSystemMissing(): string | undefined {
  if (!have(ARM64_CC)) return `${ARM64_CC} is not installed (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)`;
  if (!have(QEMU_SYSTEM)) return `${QEMU_SYSTEM} is not installed (apt-get install qemu-system-arm)`;
  if (!have("apt-get") || !have("dpkg-deb")) return "apt-get and dpkg-deb are needed to fetch Debian's arm64 kernel";
  return undefined;
}

function run(cmd: string, args: string[], what: string, timeout = 120_000): string {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout });
  if (r.status !== 0) throw new Error(`${what} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** The linux-arm64 helpers, built from this checkout by build.ts into `dir`. */
export function buildArm64Helpers(dir: string): string {
  const bun = join(ROOT, "node_modules", ".bin", "bun");
  run(bun, [join(ROOT, "build.ts"), "--native-only", "--target", "linux-arm64", "--helpers-out", dir], "bun build.ts --target linux-arm64");
  return dir;
}

/** Compiles a C fixture for aarch64 (static or dynamic) into `out`. */
export function crossCompile(source: string, out: string, linkage: "static" | "dynamic"): string {
  run(
    ARM64_CC,
    ["-O2", "-Wall", "-Wextra", "-Werror", ...(linkage === "static" ? ["-static"] : []), "-o", out, source],
    `${ARM64_CC} ${source}`,
  );
  return out;
}

/** The folder test downloads are kept in between runs: `$XBENCH_TEST_CACHE` or ~/.cache/xbench-test. */
export function testCacheDir(): string {
  return process.env.XBENCH_TEST_CACHE ?? join(homedir(), ".cache", "xbench-test");
}

/**
 * Debian's arm64 cloud kernel image (uncompressed `Image`), fetched once with apt into the test
 * cache. apt runs with a private state, cache and source list for the arm64 architecture only,
 * so the system's dpkg architectures and package lists stay as they are.
 */
export function arm64Kernel(): string {
  const dir = join(testCacheDir(), "arm64-kernel");
  const cached = existsSync(dir) ? readdirSync(dir).find((f) => f.startsWith("vmlinuz-")) : undefined;
  if (cached) return join(dir, cached);
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "xbench-arm64-apt-"));
  try {
    for (const sub of ["state/lists/partial", "cache/archives/partial", "etc/sources.list.d", "etc/preferences.d", "deb"])
      mkdirSync(join(work, sub), { recursive: true });
    writeFileSync(join(work, "state", "status"), "");
    const keyring = "/usr/share/keyrings/debian-archive-keyring.gpg";
    if (!existsSync(keyring)) throw new Error(`${keyring} is missing (apt-get install debian-archive-keyring)`);
    const line = (suite: string, path: string) => `deb [arch=arm64 signed-by=${keyring}] http://deb.debian.org/${path} ${suite} main\n`;
    writeFileSync(join(work, "etc", "sources.list"), line("bookworm", "debian") + line("bookworm-security", "debian-security"));
    const opts = [
      ["Dir::State", "state"],
      ["Dir::State::status", "state/status"],
      ["Dir::Cache", "cache"],
      ["Dir::Etc::SourceList", "etc/sources.list"],
      ["Dir::Etc::SourceParts", "etc/sources.list.d"],
      ["Dir::Etc::Preferences", "etc/preferences"],
      ["Dir::Etc::PreferencesParts", "etc/preferences.d"],
    ].flatMap(([k, v]) => ["-o", `${k}=${join(work, v!)}`]);
    const apt = [
      ...opts,
      "-o",
      "APT::Architecture=arm64",
      "-o",
      "APT::Architectures=arm64",
      "-o",
      "Acquire::Languages=none",
      "-o",
      "Debug::NoLocking=true",
      "-qq",
    ];
    run("apt-get", [...apt, "update"], "apt-get update (arm64, private state)", 300_000);
    const depends = run("apt-cache", [...apt, "depends", "linux-image-cloud-arm64"], "apt-cache depends linux-image-cloud-arm64");
    const image = /Depends: (linux-image-[0-9][^\s]*-cloud-arm64)/.exec(depends)?.[1];
    if (!image) throw new Error(`no kernel package in: ${depends}`);
    chmodSync(join(work, "deb"), 0o777); // apt's _apt user writes the download when run as root
    const dl = spawnSync("apt-get", [...apt, "download", image], { cwd: join(work, "deb"), encoding: "utf8", timeout: 300_000 });
    const deb = readdirSync(join(work, "deb")).find((f) => f.endsWith(".deb"));
    if (!deb) throw new Error(`apt-get download ${image} failed: ${dl.stderr}`);
    run("dpkg-deb", ["-x", join(work, "deb", deb), join(work, "x")], "dpkg-deb -x");
    const vmlinuz = readdirSync(join(work, "x", "boot")).find((f) => f.startsWith("vmlinuz-"));
    if (!vmlinuz) throw new Error(`${deb} has no /boot/vmlinuz-*`);
    const dest = join(dir, vmlinuz);
    renameSync(join(work, "x", "boot", vmlinuz), `${dest}.tmp`);
    renameSync(`${dest}.tmp`, dest);
    return dest;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** One initramfs entry: a directory, or a file with its bytes and mode. */
export type CpioEntry = { path: string; dir: true } | { path: string; data: Uint8Array; mode: number };

/** Writes a newc ("070701") cpio archive, as the kernel unpacks an initramfs. */
export function writeNewc(entries: CpioEntry[], out: string): void {
  const parts: Buffer[] = [];
  const pad4 = (n: number) => Buffer.alloc((4 - (n % 4)) % 4);
  const hex = (n: number) => n.toString(16).padStart(8, "0");
  const add = (name: string, mode: number, data: Uint8Array, ino: number) => {
    const nameBytes = Buffer.from(`${name}\0`);
    const fields = [ino, mode, 0, 0, 1, 0, data.length, 0, 0, 0, 0, nameBytes.length, 0];
    const header = Buffer.from(`070701${fields.map(hex).join("")}`);
    parts.push(header, nameBytes, pad4(header.length + nameBytes.length), Buffer.from(data), pad4(data.length));
  };
  entries.forEach((e, i) => {
    const name = e.path.replace(/^\/+/, "");
    if ("dir" in e) add(name, 0o040755, new Uint8Array(), i + 1);
    else add(name, 0o100000 | e.mode, e.data, i + 1);
  });
  add("TRAILER!!!", 0, new Uint8Array(), 0);
  writeFileSync(out, Buffer.concat(parts));
}

/** A file from the host for the initramfs. */
export function hostFile(path: string, from: string, mode = 0o755): CpioEntry {
  return { path, data: readFileSync(from), mode };
}

export interface VmRun {
  /** The supervisor's exit code, or undefined if it died of a signal or timed out. */
  exit?: number;
  ms?: number;
  timedOut: boolean;
  log?: Buffer;
}

export interface VmResult {
  console: string;
  /** Wall time of boot, every run and power-off. */
  ms: number;
  runs: Map<string, VmRun>;
  failures: string[];
}

/**
 * Boots `kernel` with `initrd` (its /init powers off at the end) and parses the console. The
 * timeout leaves room for a few runs that each hit the init's 30 s limit.
 */
export function bootVm(kernel: string, initrd: string, timeoutMs = 150_000): VmResult {
  const args = ["-M", "virt", "-cpu", "max", "-m", "256", "-smp", "1", "-display", "none", "-nodefaults", "-no-reboot"];
  args.push("-serial", "stdio", "-kernel", kernel, "-initrd", initrd, "-append", "console=ttyAMA0 quiet loglevel=1 panic=-1 rdinit=/init");
  const t0 = performance.now();
  const r = spawnSync(QEMU_SYSTEM, args, { encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 << 20 });
  const ms = performance.now() - t0;
  if (r.error) throw new Error(`${QEMU_SYSTEM}: ${r.error.message}\n${r.stdout ?? ""}`);
  return { ...parseConsole(r.stdout.replaceAll("\r", "")), ms };
}

/** The init's markers (test/fixtures/trace/arm64-init.c) to runs and their logs. */
export function parseConsole(text: string): Omit<VmResult, "ms"> {
  const runs = new Map<string, VmRun>();
  const failures = [...text.matchAll(/^XB-FAIL (.*)$/gm)].map((m) => m[1]!);
  for (const m of text.matchAll(/^XB-RUN (\S+) (?:exit=(\d+)|signal=\d+|(timeout))(?: ms=([\d.]+))?$/gm)) {
    runs.set(m[1]!, {
      exit: m[2] === undefined ? undefined : Number(m[2]),
      ms: m[4] === undefined ? undefined : Number(m[4]),
      timedOut: m[3] !== undefined,
    });
  }
  for (const m of text.matchAll(/^XB-LOG (\S+) (\d+)\n([A-Za-z0-9+/=\n]*?)XB-END \1$/gm)) {
    const log = Buffer.from(m[3]!.replaceAll("\n", ""), "base64");
    const run = runs.get(m[1]!);
    if (run && log.length === Number(m[2])) run.log = log;
  }
  return { console: text, runs, failures };
}

/**
 * argv that runs `command` with arm64 ELF files executable through qemu-user, the way a host with
 * qemu-user-static's binfmt_misc entry runs them, without touching this machine's binfmt_misc: a
 * user and mount namespace get a binfmt_misc instance of their own (Linux 6.7+), with one entry.
 */
export function withPrivateBinfmt(command: string[], qemu: string): string[] {
  const hex = (bytes: number[]) => bytes.map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join("");
  const magic = hex([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0xb7, 0]); // ELF64 LE, EXEC/DYN, aarch64
  const mask = hex([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, ...Array(8).fill(0xff), 0xfe, 0xff, 0xff, 0xff]);
  const script = [
    "mount -t binfmt_misc none /proc/sys/fs/binfmt_misc || exit 90",
    `printf ':qemu-aarch64:M::${magic}:${mask}:${qemu}:F' > /proc/sys/fs/binfmt_misc/register || exit 91`,
    'exec "$@"',
  ].join("\n");
  return ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh", ...command];
}

/** Why arm64 programs cannot be run directly here (withPrivateBinfmt), or undefined. */
export function privateBinfmtMissing(qemu: string): string | undefined {
  if (!have("unshare")) return "unshare is not installed (util-linux)";
  const [cmd, ...args] = withPrivateBinfmt(["true"], qemu);
  const r = spawnSync(cmd!, args, { encoding: "utf8", timeout: 30_000 });
  if (r.status === 0) return undefined;
  return `no private binfmt_misc (a user namespace with its own binfmt_misc needs Linux 6.7+ and unprivileged user namespaces): exit ${r.status} ${r.stderr.trim()}`;
}

/** Writes a log fetched from the VM to a file, for readAccessLog. */
export function saveLog(dir: string, name: string, log: Buffer): string {
  const file = join(dir, `${name}.log`);
  writeFileSync(file, log);
  chmodSync(file, 0o600);
  return file;
}
