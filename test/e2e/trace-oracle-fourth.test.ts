/**
 * A fourth held-out set for the strace oracle (rules in test/support/trace-oracle.ts): what the
 * first three sets have not met. Programs run with an audit module (ld.so's LD_AUDIT, a
 * program's DT_AUDIT), which takes the static TLS reserve. XBENCH_TRACE_DEBUG=1 prints every
 * difference.
 */
import { join } from "pathe";
import { compile, fixture, lacking } from "../support/trace.ts";
import { type OracleCase, oracleScratch, oracleTests } from "../support/trace-oracle.ts";

const { dir, fresh, withFiles } = oracleScratch("xbench-trace-oracle-fourth-");

const audit = join(dir, "libaudit.so");
const threads = join(dir, "threads");
const threadsAudited = join(dir, "threads-audited");
compile("gcc", ["-O2", "-shared", "-fPIC", "-o", audit, fixture("audit.c")]);
compile("gcc", ["-O2", "-pthread", "-o", threads, fixture("threads.c")]);
compile("gcc", ["-O2", "-pthread", `-Wl,--audit=${audit}`, "-o", threadsAudited, fixture("threads.c")]);

/** An audit module's calls go through its own C library, which preload does not reach (docs/tracer.md). */
const AUDITED = "an audit module runs in a link-map namespace of its own";

const cases: OracleCase[] = [
  {
    name: "sotruss: a program run with ld.so's audit interface",
    skip: lacking("sotruss"),
    cmd: ["sotruss", "-o", "calls", "/bin/true"],
    preloadIncomplete: AUDITED,
    setup: () => fresh("sotruss"),
  },
  {
    name: "threads that open files, under an audit module with no optional static TLS left",
    cmd: [threads, "sub"],
    env: { ...process.env, LD_AUDIT: audit, GLIBC_TUNABLES: "glibc.rtld.optional_static_tls=0" },
    preloadIncomplete: AUDITED,
    setup: () => withFiles("audit-threads", { "sub/t0-f0": "", "sub/t7-f999": "" }),
  },
  {
    name: "a program whose own DT_AUDIT names an audit module",
    cmd: [threadsAudited, "sub"],
    preloadIncomplete: AUDITED,
    setup: () => withFiles("dt-audit", { "sub/t3-f5": "" }),
  },
];

oracleTests("strace -f oracle on a fourth held-out set", cases, fresh("strace"));
