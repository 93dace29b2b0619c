package io.tandem.roles;

import io.tandem.engine.NodeId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which roles run on which members, as data (DESIGN §2.1): read from a deployment file, checked
 * against the protocol's {@link RoleCatalog}, and {@linkplain #resolve resolved} against the group's
 * members into a {@link Placement}. The same file goes to every member, like the member list.
 *
 * <p>The format is the one of Tandem's config files, one {@code role = node, node, ...} per line,
 * {@code *} for every member, {@code #} starting a comment:
 *
 * <pre>
 * # MultiPaxos on five members: two proposers, three acceptors apart from them
 * leader   = n1, n2
 * acceptor = n3, n4, n5
 * replica  = n1, n2, n3
 * frontend = n1, n2
 * </pre>
 *
 * <p>Hand-written rather than TOML or YAML: the whole grammar is the line above, and a library would
 * add a dependency to every embedding application for it.
 *
 * <p>Checked when read (with the file's line in the message): every line has that shape, every
 * role is one of the protocol's, no role is placed twice, no member is listed twice for one role
 * (two instances of one role must not share a failure domain), every role the protocol requires is
 * placed. Checked when resolved: every listed node is a member, every role has at least its minimum
 * number of members, every member runs some role.
 */
public final class Deployment {
    private static final Pattern NODE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");
    private static final String EVERY_MEMBER = "*";

    /** One placed role: the nodes named, or null for every member, and the line that said so. */
    private record Line(List<String> nodes, int number) {}

    private final RoleCatalog catalog;
    private final Map<String, Line> roles;

    private Deployment(RoleCatalog catalog, Map<String, Line> roles) {
        this.catalog = catalog;
        this.roles = roles;
    }

    /** Every role of {@code catalog} on every member: the classic, fully co-located deployment. */
    public static Deployment everywhere(RoleCatalog catalog) {
        Map<String, Line> all = new LinkedHashMap<>();
        for (RoleCatalog.RoleSpec r : catalog.roles()) all.put(r.name(), new Line(null, 0));
        return new Deployment(catalog, all);
    }

    /** Reads deployment file {@code file}; errors name the file and line. */
    public static Deployment read(Path file, RoleCatalog catalog) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new DeploymentException("cannot read deployment file " + file + ": " + e.getMessage());
        }
        return parse(text, file.toString(), catalog);
    }

    /** Parses deployment text; {@code source} names it in errors (a file name, "--deployment"). */
    public static Deployment parse(String text, String source, RoleCatalog catalog) {
        Objects.requireNonNull(text, "text");
        Map<String, Line> roles = new LinkedHashMap<>();
        String[] lines = text.split("\\R", -1);
        for (int i = 0; i < lines.length; i++) {
            int number = i + 1;
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String where = source + ":" + number + ": ";
            int eq = line.indexOf('=');
            if (eq < 0) throw new DeploymentException(where + "expected 'role = node, node, ...' (or 'role = *'), got '" + line + "'");
            String role = line.substring(0, eq).strip();
            if (catalog.role(role).isEmpty()) {
                throw new DeploymentException(where + "unknown role '" + role + "' for " + catalog.protocol() + "; its roles are " + String.join(", ", catalog.names()));
            }
            Line earlier = roles.get(role);
            if (earlier != null) throw new DeploymentException(where + "role " + role + " is placed twice (first on line " + earlier.number() + ")");
            String list = line.substring(eq + 1).strip();
            if (list.isEmpty()) throw new DeploymentException(where + "role " + role + " lists no nodes (use '*' for every member, or leave the role out if it is optional)");
            if (list.equals(EVERY_MEMBER)) {
                roles.put(role, new Line(null, number));
                continue;
            }
            Set<String> nodes = new LinkedHashSet<>();
            for (String part : list.split(",")) {
                String node = part.strip();
                if (!NODE.matcher(node).matches()) throw new DeploymentException(where + "'" + node + "' is not a member name (in the list of role " + role + ")");
                if (!nodes.add(node)) {
                    throw new DeploymentException(where + node + " is listed twice for role " + role
                            + ": two instances of one role must not share a member, one failure would take both");
                }
            }
            roles.put(role, new Line(List.copyOf(nodes), number));
        }
        for (RoleCatalog.RoleSpec r : catalog.roles()) {
            if (r.minNodes() > 0 && !roles.containsKey(r.name())) {
                throw new DeploymentException(source + ": no line places role " + r.name() + ", which " + catalog.protocol() + " needs on at least "
                        + r.minNodes() + (r.minNodes() == 1 ? " member" : " members") + " (" + r.description() + ")");
            }
        }
        return new Deployment(catalog, roles);
    }

    public RoleCatalog catalog() {
        return catalog;
    }

    /** Resolves the placement for a group of {@code members}, checking it can run there. */
    public Placement resolve(List<NodeId> members) {
        Set<String> names = new LinkedHashSet<>();
        for (NodeId m : members) names.add(m.value());
        Map<String, List<NodeId>> placed = new LinkedHashMap<>();
        for (RoleCatalog.RoleSpec spec : catalog.roles()) {
            Line line = roles.get(spec.name());
            List<NodeId> nodes = new ArrayList<>();
            if (line != null && line.nodes() == null) nodes.addAll(members);
            else if (line != null) {
                for (String n : line.nodes()) {
                    if (!names.contains(n)) {
                        throw new DeploymentException("role " + spec.name() + (line.number() > 0 ? " (line " + line.number() + ")" : "") + " names " + n
                                + ", which is not a member of the group " + names);
                    }
                    nodes.add(NodeId.of(n));
                }
            }
            if (nodes.size() < spec.minNodes()) {
                throw new DeploymentException("role " + spec.name() + " runs on " + nodes.size() + (nodes.size() == 1 ? " member" : " members") + ", "
                        + catalog.protocol() + " needs at least " + spec.minNodes() + " (" + spec.description() + ")");
            }
            placed.put(spec.name(), nodes);
        }
        Placement placement = new Placement(members, placed);
        for (NodeId m : members) {
            if (placement.rolesOf(m).isEmpty()) throw new DeploymentException(m + " is a member but the deployment gives it no role: remove it from the members or place a role on it");
        }
        return placement;
    }

    /** This deployment in the file format; {@link #parse} reads it back to an equal deployment. */
    public String toText() {
        StringBuilder s = new StringBuilder("# ").append(catalog.protocol()).append(" deployment\n");
        roles.forEach((role, line) -> s.append(role).append(" = ").append(line.nodes() == null ? EVERY_MEMBER : String.join(", ", line.nodes())).append('\n'));
        return s.toString();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Deployment d) || !catalog.equals(d.catalog) || !roles.keySet().equals(d.roles.keySet())) return false;
        for (var e : roles.entrySet()) {
            if (!Objects.equals(e.getValue().nodes(), d.roles.get(e.getKey()).nodes())) return false;
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = catalog.hashCode();
        for (var e : roles.entrySet()) h = 31 * h + e.getKey().hashCode() * 17 + Objects.hashCode(e.getValue().nodes());
        return h;
    }

    @Override
    public String toString() {
        return toText().strip().replace('\n', ';');
    }
}
