package io.tandem.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Prints Java values as EDN the way Clojure's {@code prn} does: vector elements separated by a space,
 * map entries by {@code ", "}, strings escaped, big integers with an {@code N} suffix, non-finite doubles
 * as {@code ##Inf}/{@code ##-Inf}/{@code ##NaN}. Accepts exactly the types {@link EdnReader} produces
 * (plus {@code Integer}, {@code Short}, {@code Byte}, {@code Float}), so what it writes reads back equal.
 */
public final class EdnWriter {
    private EdnWriter() {}

    /** The EDN text of a value. */
    public static String toEdn(Object value) {
        StringBuilder sb = new StringBuilder();
        write(value, sb);
        return sb.toString();
    }

    /** Appends the EDN text of a value; an {@link IOException} from {@code out} becomes unchecked. */
    public static void write(Object value, Appendable out) {
        try {
            writeValue(value, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeValue(Object value, Appendable out) throws IOException {
        switch (value) {
            case null -> out.append("nil");
            case Boolean b -> out.append(b ? "true" : "false");
            case Long l -> out.append(Long.toString(l));
            case Integer i -> out.append(Integer.toString(i));
            case Short s -> out.append(Short.toString(s));
            case Byte b -> out.append(Byte.toString(b));
            case BigInteger b -> out.append(b.toString()).append('N');
            case Double d -> writeDouble(d, out);
            case Float f -> writeDouble(f.doubleValue(), out);
            case BigDecimal d -> out.append(d.toString()).append('M');
            case Ratio r -> out.append(r.numerator().toString()).append('/').append(r.denominator().toString());
            case String s -> writeString(s, out);
            case Character c -> writeCharacter(c, out);
            case Keyword k -> out.append(':').append(k.name());
            case Symbol s -> out.append(s.name());
            case Tagged t -> {
                out.append('#').append(t.tag().name());
                // A map or a vector follows the tag directly, as Clojure prints records and objects; anything
                // else needs a space so that the tag and the value stay separate tokens ("#tag#{...}" would not).
                if (!(t.value() instanceof Map || t.value() instanceof List)) {
                    out.append(' ');
                }
                writeValue(t.value(), out);
            }
            case EdnList l -> writeSequence(l, '(', ')', out);
            case List<?> l -> writeSequence(l, '[', ']', out);
            case Set<?> s -> {
                out.append('#');
                writeSequence(s, '{', '}', out);
            }
            case Map<?, ?> m -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) {
                        out.append(", ");
                    }
                    first = false;
                    writeValue(e.getKey(), out);
                    out.append(' ');
                    writeValue(e.getValue(), out);
                }
                out.append('}');
            }
            case Object[] array -> writeSequence(List.of(array), '[', ']', out);
            default -> throw new IllegalArgumentException("cannot write a " + value.getClass().getName()
                    + " as EDN: " + value);
        }
    }

    private static void writeSequence(Iterable<?> items, char open, char close, Appendable out) throws IOException {
        out.append(open);
        Iterator<?> it = items.iterator();
        while (it.hasNext()) {
            writeValue(it.next(), out);
            if (it.hasNext()) {
                out.append(' ');
            }
        }
        out.append(close);
    }

    private static void writeDouble(double d, Appendable out) throws IOException {
        if (Double.isNaN(d)) {
            out.append("##NaN");
        } else if (Double.isInfinite(d)) {
            out.append(d > 0 ? "##Inf" : "##-Inf");
        } else {
            out.append(Double.toString(d)); // always has '.' or 'E', so it reads back as a double
        }
    }

    private static void writeString(String s, Appendable out) throws IOException {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || c == 0x7F) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static void writeCharacter(char c, Appendable out) throws IOException {
        out.append(switch (c) {
            case '\n' -> "\\newline";
            case ' ' -> "\\space";
            case '\t' -> "\\tab";
            case '\r' -> "\\return";
            case '\b' -> "\\backspace";
            case '\f' -> "\\formfeed";
            default -> c < 0x20 || c == 0x7F || Character.isWhitespace(c) ? String.format("\\u%04x", (int) c) : "\\" + c;
        });
    }
}
