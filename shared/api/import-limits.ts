/**
 * The largest package zip an import takes, shared by the Worker (worker/package-io/limits.ts, which
 * says why it is this size) and the app, which refuses a larger file before sending it.
 */
export const MAX_PACKAGE_ZIP_BYTES = 24 * 1024 * 1024;

/** The same, in whole megabytes for people (MiB, as file managers count). */
export const MAX_PACKAGE_ZIP_MB = MAX_PACKAGE_ZIP_BYTES / 1024 / 1024;
