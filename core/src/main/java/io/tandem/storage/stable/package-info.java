/**
 * Blocking storage, driven by one disk thread per node: {@link io.tandem.storage.stable.StableLog},
 * {@link io.tandem.storage.stable.StableMetaStore}, {@link io.tandem.storage.stable.StableSnapshotStore}.
 * Engines never use these; {@link io.tandem.storage.NodeStorage} wraps them into the non-blocking
 * views of {@link io.tandem.storage}. File implementations live in {@code io.tandem.storage.file},
 * in-memory ones (with the same crash contract) in {@code io.tandem.storage.memory}.
 */
package io.tandem.storage.stable;
