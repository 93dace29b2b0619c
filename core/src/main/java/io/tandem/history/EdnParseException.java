package io.tandem.history;

/** Malformed EDN text; the message names the line and column where reading failed. */
public final class EdnParseException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int line;
    private final int column;

    EdnParseException(String message, int line, int column) {
        super("line " + line + ", column " + column + ": " + message);
        this.line = line;
        this.column = column;
    }

    /** 1-based line of the offending character. */
    public int line() {
        return line;
    }

    /** 1-based column of the offending character. */
    public int column() {
        return column;
    }
}
