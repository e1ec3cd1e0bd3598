/** What a traced command did to one path. */
export type AccessMode = "read" | "write" | "readdir" | "stat" | "exec" | "missing";

/** Every mode, in the order output lists them. */
export const ACCESS_MODES: readonly AccessMode[] = ["read", "write", "readdir", "stat", "exec", "missing"];

export interface Access {
  /** Absolute, lexically normalized path. Bytes that are not UTF-8 show as U+FFFD here... */
  path: string;
  /** ...and then the exact bytes are in `pathHex`. */
  pathHex?: string;
  /** Sorted in ACCESS_MODES order, deduplicated. */
  modes: AccessMode[];
  /** The first process that touched the path (a thread id under seccomp). */
  pid: number;
  /** The recorded path was cut short (longer than the tracer records). */
  truncated?: boolean;
}

/** `auto`: preload for programs with an ELF interpreter, seccomp for static ones, per exec (Linux); the hook DLL (Windows). */
export type TraceBackend = "auto" | "preload" | "seccomp";

/** A backend that actually recorded something ("dll": the hook DLL on Windows, native/win/). */
export type UsedBackend = "preload" | "seccomp" | "dll";
