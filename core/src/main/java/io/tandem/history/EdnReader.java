package io.tandem.history;

import java.io.Closeable;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A streaming reader for EDN (https://github.com/edn-format/edn), tolerant of what Clojure's
 * {@code prn} writes into Jepsen histories.
 *
 * <p>Values map to Java as follows: nil → {@code null}; booleans → {@link Boolean}; integers →
 * {@link Long}, or {@link BigInteger} outside the long range; floats → {@link Double} ({@code M} suffix:
 * {@link BigDecimal}); strings → {@link String}; characters → {@link Character}; keywords →
 * {@link Keyword}; symbols → {@link Symbol}; vectors → unmodifiable {@link List}; lists →
 * {@link EdnList}; maps → unmodifiable insertion-ordered {@link Map}; sets → unmodifiable
 * insertion-ordered {@link Set}; {@code #tag value} → {@link Tagged}; ratios → {@link Ratio}. Commas are
 * whitespace, {@code ;} starts a comment, {@code #_} discards the next form, {@code ^meta} is dropped,
 * and {@code ##Inf}, {@code ##-Inf}, {@code ##NaN} are doubles.
 *
 * <p>Malformed input raises {@link EdnParseException} with the line and column. Duplicate map keys and
 * set elements are errors, as in Clojure.
 */
public final class EdnReader implements Closeable {
    private static final int EOF = -1;
    /** Deep enough for any history (datafied exceptions nest a few levels), shallow enough for small thread stacks. */
    private static final int MAX_DEPTH = 200;
    private static final Pattern INTEGER = Pattern.compile("([+-]?)(0|[1-9][0-9]*)(N?)");
    private static final Pattern HEX = Pattern.compile("([+-]?)0[xX]([0-9a-fA-F]+)(N?)");
    private static final Pattern OCTAL = Pattern.compile("([+-]?)0([0-7]+)(N?)");
    private static final Pattern RADIX = Pattern.compile("([+-]?)([1-9][0-9]?)[rR]([0-9a-zA-Z]+)");
    private static final Pattern FLOAT = Pattern.compile("[+-]?[0-9]+(\\.[0-9]*)?([eE][+-]?[0-9]+)?(M?)");
    private static final Pattern RATIO = Pattern.compile("([+-]?[0-9]+)/([0-9]+)");

    private final Reader in;
    private final char[] buf = new char[8192];
    private int pos;
    private int limit;
    private int line = 1;
    private int column = 1;
    private int depth;

    public EdnReader(Reader in) {
        this.in = in;
    }

    /** Parses text holding exactly one EDN form (surrounding whitespace and comments allowed). */
    public static Object parse(String text) {
        try (EdnReader reader = new EdnReader(new StringReader(text))) {
            if (!reader.hasNext()) {
                throw reader.error("expected an EDN form, found only whitespace and comments");
            }
            Object value = reader.next();
            if (reader.hasNext()) {
                throw reader.error("unexpected " + describe(reader.peek()) + " after the first form");
            }
            return value;
        }
    }

    /** Parses every top-level form of the text. */
    public static List<Object> parseAll(String text) {
        try (EdnReader reader = new EdnReader(new StringReader(text))) {
            List<Object> forms = new ArrayList<>();
            while (reader.hasNext()) {
                forms.add(reader.next());
            }
            return forms;
        }
    }

    /** Skips whitespace, comments and discarded forms; true if another form follows. */
    public boolean hasNext() {
        return skipBlank() != EOF;
    }

    /** Reads the next top-level form. */
    public Object next() {
        int c = skipBlank();
        if (c == EOF) {
            throw error("unexpected end of input, expected a form");
        }
        return readForm();
    }

    /** The 1-based line of the next character to be read (after {@link #hasNext()}: of the next form). */
    public int line() {
        return line;
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- package-private hooks for HistoryReader, which reads a top-level [...] element by element

    /** Skips blanks and returns the next character without consuming it, or -1 at the end. */
    int peekAfterBlank() {
        return skipBlank();
    }

    /** Consumes one character (the caller has peeked it). */
    void skipChar() {
        read();
    }

    /** Reads one form starting at the current (non-blank) position. */
    Object readFormHere() {
        return readForm();
    }

    EdnParseException error(String message) {
        return new EdnParseException(message, line, column);
    }

    // ---- character buffer

    private boolean fill(int needed) {
        if (limit - pos >= needed) {
            return true;
        }
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, limit - pos);
            limit -= pos;
            pos = 0;
        }
        try {
            while (limit - pos < needed) {
                int n = in.read(buf, limit, buf.length - limit);
                if (n < 0) {
                    return false;
                }
                limit += n;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return true;
    }

    private int peek() {
        return fill(1) ? buf[pos] : EOF;
    }

    private int peek2() {
        return fill(2) ? buf[pos + 1] : EOF;
    }

    private int read() {
        if (!fill(1)) {
            return EOF;
        }
        char c = buf[pos++];
        if (c == '\n') {
            line++;
            column = 1;
        } else {
            column++;
        }
        return c;
    }

    // ---- lexical structure

    private static boolean isWhitespace(int c) {
        return c == ' ' || c == ',' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == 0x0B
                || (c > 0x7F && Character.isWhitespace(c));
    }

    /** Characters that end a symbol, keyword, number or character token. */
    private static boolean isDelimiter(int c) {
        return c == EOF || isWhitespace(c) || c == '"' || c == ';' || c == '(' || c == ')' || c == '['
                || c == ']' || c == '{' || c == '}' || c == '\\' || c == '^' || c == '@' || c == '`' || c == '~';
    }

    /** Skips whitespace, commas, comments, {@code #_} discards and {@code ^meta}; returns the next char. */
    private int skipBlank() {
        while (true) {
            int c = peek();
            if (c == EOF) {
                return EOF;
            } else if (isWhitespace(c)) {
                read();
            } else if (c == ';') {
                while (c != EOF && c != '\n') {
                    c = read();
                }
            } else if (c == '#' && peek2() == '_') {
                read();
                read();
                requireForm("#_");
                readForm();
            } else if (c == '#' && peek2() == '!') {
                // Clojure treats "#!" (shebang) as a line comment.
                while (c != EOF && c != '\n') {
                    c = read();
                }
            } else {
                return c;
            }
        }
    }

    private void requireForm(String after) {
        int c = skipBlank();
        if (c == EOF) {
            throw error("unexpected end of input after " + after);
        }
        if (c == ')' || c == ']' || c == '}') {
            throw error("expected a form after " + after + ", found " + describe(c));
        }
    }

    private static String describe(int c) {
        return c == EOF ? "end of input" : "'" + (char) c + "'";
    }

    // ---- forms

    private Object readForm() {
        if (++depth > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH + " levels");
        }
        try {
            return readFormUnguarded();
        } finally {
            depth--;
        }
    }

    private Object readFormUnguarded() {
        int startLine = line;
        int startColumn = column;
        int c = peek();
        switch (c) {
            case '(' -> {
                read();
                return EdnList.of(readSequence(')', "list", startLine, startColumn));
            }
            case '[' -> {
                read();
                return EdnValues.immutableList(readSequence(']', "vector", startLine, startColumn));
            }
            case '{' -> {
                read();
                return readMap(startLine, startColumn);
            }
            case '"' -> {
                read();
                return readString(startLine, startColumn);
            }
            case '\\' -> {
                read();
                return readCharacter();
            }
            case '#' -> {
                read();
                return readDispatch(startLine, startColumn);
            }
            case '^' -> {
                read();
                requireForm("^ (metadata)");
                readForm(); // the metadata itself is dropped
                requireForm("metadata");
                return readForm();
            }
            case ')', ']', '}' -> throw error("unmatched closing " + describe(c));
            case EOF -> throw error("unexpected end of input");
            default -> {
                return readToken();
            }
        }
    }

    private List<Object> readSequence(char close, String kind, int startLine, int startColumn) {
        List<Object> items = new ArrayList<>();
        while (true) {
            int c = skipBlank();
            if (c == EOF) {
                throw error("end of input inside the " + kind + " opened at line " + startLine + ", column " + startColumn);
            }
            if (c == close) {
                read();
                return items;
            }
            if (c == ')' || c == ']' || c == '}') {
                throw error("mismatched " + describe(c) + " closing the " + kind + " opened at line " + startLine
                        + ", column " + startColumn);
            }
            items.add(readForm());
        }
    }

    private Map<Object, Object> readMap(int startLine, int startColumn) {
        List<Object> items = readSequence('}', "map", startLine, startColumn);
        if (items.size() % 2 != 0) {
            throw new EdnParseException("the map opened here has an odd number of forms (" + items.size()
                    + "): a key has no value", startLine, startColumn);
        }
        Map<Object, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < items.size(); i += 2) {
            Object key = items.get(i);
            if (map.containsKey(key)) {
                throw new EdnParseException("duplicate key " + EdnWriter.toEdn(key) + " in the map opened here",
                        startLine, startColumn);
            }
            map.put(key, items.get(i + 1));
        }
        return EdnValues.immutableMap(map);
    }

    private Object readDispatch(int startLine, int startColumn) {
        int c = peek();
        switch (c) {
            case '{' -> {
                read();
                List<Object> items = readSequence('}', "set", startLine, startColumn);
                Set<Object> set = new LinkedHashSet<>();
                for (Object item : items) {
                    if (!set.add(item)) {
                        throw new EdnParseException("duplicate element " + EdnWriter.toEdn(item)
                                + " in the set opened here", startLine, startColumn);
                    }
                }
                return EdnValues.immutableSet(set);
            }
            case '#' -> {
                read();
                String token = readTokenText();
                return switch (token) {
                    case "Inf" -> Double.POSITIVE_INFINITY;
                    case "-Inf" -> Double.NEGATIVE_INFINITY;
                    case "NaN" -> Double.NaN;
                    default -> throw new EdnParseException("unknown symbolic value ##" + token, startLine, startColumn);
                };
            }
            case '"' -> throw error("regular expression literals (#\"...\") are not EDN");
            case ':' -> throw error("namespaced map literals (#:ns{...}) are not supported");
            case EOF -> throw error("unexpected end of input after '#'");
            default -> {
                if (!Character.isLetter(c)) {
                    throw error("invalid dispatch '#" + (char) c + "'");
                }
                String tag = readTokenText();
                requireForm("the tag #" + tag);
                return new Tagged(new Symbol(tag), readForm());
            }
        }
    }

    private String readString(int startLine, int startColumn) {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int c = read();
            if (c == EOF) {
                throw new EdnParseException("end of input inside the string opened here", startLine, startColumn);
            }
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append((char) c);
                continue;
            }
            int e = read();
            switch (e) {
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'n' -> sb.append('\n');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case '\\' -> sb.append('\\');
                case '"' -> sb.append('"');
                case 'u' -> sb.append((char) readHexDigits(4));
                case EOF -> throw new EdnParseException("end of input inside the string opened here", startLine, startColumn);
                default -> {
                    if (e >= '0' && e <= '7') {
                        int value = e - '0';
                        for (int i = 0; i < 2 && peek() >= '0' && peek() <= '7'; i++) {
                            value = value * 8 + (read() - '0');
                        }
                        if (value > 0377) {
                            throw error("octal escape out of range");
                        }
                        sb.append((char) value);
                    } else {
                        throw error("unsupported escape sequence \\" + (char) e + " in a string");
                    }
                }
            }
        }
    }

    private int readHexDigits(int count) {
        int value = 0;
        for (int i = 0; i < count; i++) {
            int d = Character.digit(read(), 16);
            if (d < 0) {
                throw error("expected " + count + " hexadecimal digits in a \\u escape");
            }
            value = value * 16 + d;
        }
        return value;
    }

    private Character readCharacter() {
        int first = read();
        if (first == EOF) {
            throw error("end of input after '\\'");
        }
        StringBuilder sb = new StringBuilder().append((char) first);
        while (!isDelimiter(peek())) {
            sb.append((char) read());
        }
        String token = sb.toString();
        if (token.length() == 1) {
            return token.charAt(0);
        }
        return switch (token) {
            case "newline" -> '\n';
            case "space" -> ' ';
            case "tab" -> '\t';
            case "return" -> '\r';
            case "backspace" -> '\b';
            case "formfeed" -> '\f';
            default -> {
                if (token.length() == 5 && token.charAt(0) == 'u') {
                    try {
                        yield (char) Integer.parseInt(token.substring(1), 16);
                    } catch (NumberFormatException e) {
                        throw error("invalid unicode character \\" + token);
                    }
                }
                if (token.length() >= 2 && token.length() <= 4 && token.charAt(0) == 'o') {
                    try {
                        int value = Integer.parseInt(token.substring(1), 8);
                        if (value <= 0377) {
                            yield (char) value;
                        }
                    } catch (NumberFormatException e) {
                        // fall through to the error below
                    }
                }
                throw error("unknown character literal \\" + token);
            }
        };
    }

    private String readTokenText() {
        StringBuilder sb = new StringBuilder();
        while (!isDelimiter(peek())) {
            sb.append((char) read());
        }
        return sb.toString();
    }

    private Object readToken() {
        int startLine = line;
        int startColumn = column;
        String token = readTokenText();
        if (token.isEmpty()) {
            throw error("unexpected " + describe(peek()));
        }
        char first = token.charAt(0);
        if (Character.isDigit(first)
                || ((first == '+' || first == '-') && token.length() > 1 && Character.isDigit(token.charAt(1)))) {
            return parseNumber(token, startLine, startColumn);
        }
        if (first == ':') {
            String name = token.substring(1);
            if (name.isEmpty() || name.startsWith(":") || (name.endsWith("/") && name.length() > 1)) {
                throw new EdnParseException("invalid keyword " + token, startLine, startColumn);
            }
            return Keyword.of(name);
        }
        return switch (token) {
            case "nil" -> null;
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> {
                if (first == '#' || first == '\'' || (token.endsWith("/") && token.length() > 1)) {
                    throw new EdnParseException("invalid symbol " + token, startLine, startColumn);
                }
                yield new Symbol(token);
            }
        };
    }

    private Object parseNumber(String token, int startLine, int startColumn) {
        Matcher m = INTEGER.matcher(token);
        if (m.matches()) {
            BigInteger value = new BigInteger(m.group(2));
            return EdnValues.normalizeInteger(m.group(1).equals("-") ? value.negate() : value);
        }
        m = HEX.matcher(token);
        if (m.matches()) {
            BigInteger value = new BigInteger(m.group(2), 16);
            return EdnValues.normalizeInteger(m.group(1).equals("-") ? value.negate() : value);
        }
        m = OCTAL.matcher(token);
        if (m.matches()) {
            BigInteger value = new BigInteger(m.group(2), 8);
            return EdnValues.normalizeInteger(m.group(1).equals("-") ? value.negate() : value);
        }
        m = RADIX.matcher(token);
        if (m.matches()) {
            int radix = Integer.parseInt(m.group(2));
            if (radix >= 2 && radix <= 36) {
                try {
                    BigInteger value = new BigInteger(m.group(3), radix);
                    return EdnValues.normalizeInteger(m.group(1).equals("-") ? value.negate() : value);
                } catch (NumberFormatException e) {
                    // reported below
                }
            }
        }
        m = FLOAT.matcher(token);
        if (m.matches()) {
            if (m.group(3).equals("M")) {
                return new BigDecimal(token.substring(0, token.length() - 1));
            }
            return Double.parseDouble(token);
        }
        m = RATIO.matcher(token);
        if (m.matches()) {
            BigInteger denominator = new BigInteger(m.group(2));
            if (denominator.signum() != 0) {
                return new Ratio(new BigInteger(m.group(1)), denominator);
            }
        }
        throw new EdnParseException("invalid number " + token, startLine, startColumn);
    }
}
