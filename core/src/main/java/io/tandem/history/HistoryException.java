package io.tandem.history;

/**
 * A history that cannot be read or makes no sense: an op map without {@code :type}, a completion
 * without an invocation, a process invoking twice, a value a model cannot interpret. The message names
 * the source line when the history came from a file.
 */
public final class HistoryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int line;

    public HistoryException(String message) {
        this(0, message);
    }

    /** @param line 1-based source line, or 0 if the history did not come from text */
    public HistoryException(int line, String message) {
        super(line > 0 ? "line " + line + ": " + message : message);
        this.line = line;
    }

    /** The 1-based source line the problem is on, or 0 if unknown. */
    public int line() {
        return line;
    }
}
