package io.tandem.protocols.vsync.layout;

/** What the layout function answers for a view: a layout, or why the view cannot have one. */
public sealed interface LayoutResult {
    /** Every shard has at least its minimum: the view may be installed with this layout. */
    record Adequate(Layout layout) implements LayoutResult {}

    /** The view cannot fill every shard to its minimum: the group waits for more members (derecho.md §1.3). */
    record Inadequate(String reason) implements LayoutResult {}
}
