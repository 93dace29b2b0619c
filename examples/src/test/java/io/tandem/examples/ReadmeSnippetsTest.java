package io.tandem.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's code is the examples' code: every region between {@code // README-BEGIN name} and
 * {@code // README-END name} in an example appears in README.md verbatim (indentation removed), so
 * the two cannot drift apart.
 */
class ReadmeSnippetsTest {
    private static final Path EXAMPLES = Path.of("src/main/java/io/tandem/examples");
    private static final Path README = Path.of("../README.md");

    static Map<String, String> snippets() throws IOException {
        Map<String, String> all = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(EXAMPLES)) {
            for (Path f : files.sorted().toList()) {
                List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                String name = null;
                List<String> body = new ArrayList<>();
                for (String line : lines) {
                    String t = line.strip();
                    if (t.startsWith("// README-BEGIN ")) {
                        name = f.getFileName() + "#" + t.substring("// README-BEGIN ".length());
                        body.clear();
                    } else if (t.startsWith("// README-END")) {
                        all.put(name, dedent(body));
                        name = null;
                    } else if (name != null) {
                        body.add(line);
                    }
                }
            }
        }
        return all;
    }

    private static String dedent(List<String> lines) {
        int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder s = new StringBuilder();
        for (String l : lines) s.append(l.isBlank() ? "" : l.substring(indent)).append('\n');
        return s.toString();
    }

    @Test
    void everyExampleSnippetIsInTheReadmeVerbatim() throws IOException {
        Map<String, String> snippets = snippets();
        assertThat(snippets).containsKeys("TcpCluster.java#node", "TcpCluster.java#submit", "InJvmGroup.java#group", "ChannelChat.java#channel",
                "Membership.java#membership");
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        snippets.forEach((name, code) -> assertThat(readme).as("README.md quotes %s; it should contain:%n%s", name, code).contains(code));
    }

    /**
     * A module README may quote an example too: {@code <!-- snippet TcpCluster.java#node -->} before a code
     * block says which, and the block must be that region verbatim.
     */
    @Test
    void everySnippetAModuleReadmeQuotesIsTheExamplesCode() throws IOException {
        Map<String, String> snippets = snippets();
        java.util.regex.Pattern marker = java.util.regex.Pattern.compile("<!-- snippet (\\S+) -->\n```java\n(.*?)```", java.util.regex.Pattern.DOTALL);
        int quoted = 0;
        try (Stream<Path> modules = Files.list(Path.of(".."))) {
            for (Path readme : modules.map(m -> m.resolve("README.md")).filter(Files::isRegularFile).sorted().toList()) {
                var m = marker.matcher(Files.readString(readme, StandardCharsets.UTF_8));
                while (m.find()) {
                    quoted++;
                    assertThat(snippets).as("%s quotes an example region that does not exist", readme).containsKey(m.group(1));
                    assertThat(m.group(2)).as("%s quotes %s", readme, m.group(1)).isEqualTo(snippets.get(m.group(1)));
                }
            }
        }
        assertThat(quoted).as("module READMEs quoting examples").isPositive();
    }
}
