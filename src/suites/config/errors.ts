/** Why the file could not be used: bytes unreadable (EIO, EACCES) or not a valid config. */
export type FailureKind = "unreadable" | "corrupt";

export class ConfigReadError extends Error {
  override name = "ConfigReadError";
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly backup: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An edit was not attempted: the last read failed and has not succeeded since. */
export class ConfigEditRefusedError extends Error {
  override name = "ConfigEditRefusedError";
  constructor(readonly failure: ConfigReadError) {
    super(`edit refused: ${failure.message}`, { cause: failure });
  }
}

/** The transform produced something the store would refuse to read back. */
export class InvalidEditError extends Error {
  override name = "InvalidEditError";
}
