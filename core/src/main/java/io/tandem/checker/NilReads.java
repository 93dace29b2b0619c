package io.tandem.checker;

/** What an {@code :ok} read that returned nil means (verification.md §2.6). */
public enum NilReads {
    /** The register held nil (the key was absent). The default: our own harness records real reads. */
    STRICT,
    /**
     * "We don't know what the read returned", so the read matches any value. This is Knossos' rule, and
     * many Knossos-era histories rely on it: use it for foreign histories.
     */
    LENIENT
}
