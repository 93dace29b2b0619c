package io.tandem.jepsen.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One network namespace per node on a bridge in the root namespace (verification.md §5.1): node
 * {@code i} is {@code <subnet>.i} on its {@code eth0}; the bridge holds {@code <subnet>.254}, so the
 * runner's clients reach every node directly. Partitions are what {@code jepsen.net/iptables} does:
 * each node drops INPUT from the sources it holds a grudge against; clients are never cut off.
 */
public final class NetnsNetwork {
    private final HostLayout layout;
    private final Shell shell;
    private final int nodes;

    public NetnsNetwork(HostLayout layout, Shell shell, int nodes) {
        this.layout = layout;
        this.shell = shell;
        this.nodes = nodes;
    }

    /** Creates the bridge and every node's namespace; assumes a clean host (run {@link Cleanup} first). */
    public void up() {
        String br = layout.bridge();
        shell.check("ip", "link", "add", br, "type", "bridge");
        shell.check("ip", "addr", "add", layout.bridgeIp() + "/24", "dev", br);
        shell.check("ip", "link", "set", br, "up");
        for (int i = 1; i <= nodes; i++) {
            String ns = layout.namespace(i);
            String veth = layout.hostVeth(i);
            shell.check("ip", "netns", "add", ns);
            shell.check("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns);
            shell.check("ip", "link", "set", veth, "master", br);
            shell.check("ip", "link", "set", veth, "up");
            shell.check("ip", "-n", ns, "addr", "add", layout.nodeIp(i) + "/24", "dev", "eth0");
            shell.check("ip", "-n", ns, "link", "set", "eth0", "up");
            shell.check("ip", "-n", ns, "link", "set", "lo", "up");
        }
    }

    /** The command prefix that runs a program inside node {@code i}'s namespace. */
    public List<String> inNamespace(int i) {
        return List.of("ip", "netns", "exec", layout.namespace(i));
    }

    /**
     * Applies a grudge: every node drops packets from the nodes it holds a grudge against. Replaces any
     * earlier partition.
     *
     * @param grudge node index to the node indexes whose packets it drops
     */
    public void partition(Map<Integer, Set<Integer>> grudge) {
        heal();
        grudge.forEach((node, sources) -> {
            if (sources.isEmpty()) return;
            List<String> ips = new ArrayList<>();
            for (int s : sources) ips.add(layout.nodeIp(s));
            List<String> cmd = new ArrayList<>(inNamespace(node));
            cmd.addAll(List.of("iptables", "-w", "-A", "INPUT", "-s", String.join(",", ips), "-j", "DROP"));
            shell.check(cmd);
        });
    }

    /** Removes every partition rule. */
    public void heal() {
        for (int i = 1; i <= nodes; i++) {
            List<String> cmd = new ArrayList<>(inNamespace(i));
            cmd.addAll(List.of("iptables", "-w", "-F", "INPUT"));
            shell.check(cmd);
        }
    }
}
