package io.tandem.cli;

import io.tandem.kv.KvResult;
import io.tandem.kv.btree.Entry;
import io.tandem.kv.client.CasResult;
import io.tandem.kv.client.TandemKvClient;
import io.tandem.kv.net.NodeStatus;
import io.tandem.transport.Endpoint;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;

/** The one-off key-value commands: {@code tandem put|get|delete|cas|scan|status}. */
final class KvCommands {
    private KvCommands() {}

    @Command(name = "put", mixinStandardHelpOptions = true, description = "Set KEY to VALUE in the running cluster.")
    static final class Put extends ClientCommand {
        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Parameters(index = "1", paramLabel = "VALUE")
        String value;

        @Override
        int run(TandemKvClient client, PrintWriter out, PrintWriter err) {
            byte[] k = bytes(key, "KEY"), v = bytes(value, "VALUE");
            Optional<byte[]> previous = client.put(k, v);
            out.println(previous.map(p -> "OK (replaced " + quoted(p) + ")").orElse("OK"));
            return OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = {"Print the value of KEY.", "Exit status 1 if the key does not exist."})
    static final class Get extends ClientCommand {
        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Override
        int run(TandemKvClient client, PrintWriter out, PrintWriter err) {
            byte[] k = bytes(key, "KEY");
            Optional<byte[]> value = client.get(k);
            if (value.isEmpty()) {
                err.println("tandem get: key " + quoted(k) + " not found");
                return NEGATIVE;
            }
            out.println(show(value.get()));
            return OK;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete KEY (it is not an error if it does not exist).")
    static final class Delete extends ClientCommand {
        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Override
        int run(TandemKvClient client, PrintWriter out, PrintWriter err) {
            byte[] k = bytes(key, "KEY");
            Optional<byte[]> previous = client.delete(k);
            out.println(previous.map(p -> "deleted (was " + quoted(p) + ")").orElse("not found (nothing deleted)"));
            return OK;
        }
    }

    @Command(name = "cas", mixinStandardHelpOptions = true, description = {
            "Compare-and-set: set KEY to NEW only if its value is EXPECTED.",
            "  tandem cas KEY EXPECTED NEW",
            "  tandem cas --expect-absent KEY NEW      (only if KEY does not exist)",
            "  tandem cas --delete KEY EXPECTED        (delete KEY only if its value is EXPECTED)",
            "Exit status 1 if the value did not match (the current value is printed)."})
    static final class Cas extends ClientCommand {
        @Option(names = "--expect-absent", description = "Succeed only if KEY does not exist.")
        boolean expectAbsent;

        @Option(names = "--delete", description = "Delete KEY instead of setting a new value.")
        boolean delete;

        @Parameters(paramLabel = "KEY [EXPECTED] [NEW]", arity = "1..3")
        List<String> args;

        @Override
        int run(TandemKvClient client, PrintWriter out, PrintWriter err) {
            int wanted = 1 + (expectAbsent ? 0 : 1) + (delete ? 0 : 1);
            if (expectAbsent && delete) throw new ParameterException(spec.commandLine(), "--expect-absent and --delete together would delete a key that does not exist");
            if (args.size() != wanted) {
                throw new ParameterException(spec.commandLine(), "expected " + wanted + " arguments (KEY" + (expectAbsent ? "" : " EXPECTED") + (delete ? "" : " NEW")
                        + "), got " + args.size() + ": " + args);
            }
            byte[] key = bytes(args.get(0), "KEY");
            byte[] expected = expectAbsent ? null : bytes(args.get(1), "EXPECTED");
            byte[] update = delete ? null : bytes(args.get(args.size() - 1), "NEW");
            CasResult r = client.compareAndSet(key, expected, update);
            if (r.succeeded()) {
                out.println(delete ? "OK (deleted)" : "OK");
                return OK;
            }
            err.println("tandem cas: no change: " + r.currentValue().map(c -> "the current value is " + quoted(c)).orElse("the key does not exist"));
            return NEGATIVE;
        }
    }

    @Command(name = "scan", mixinStandardHelpOptions = true, description = {
            "Print the entries with FROM <= key < TO in key order (open bounds when omitted), one 'key = value' per line."})
    static final class Scan extends ClientCommand {
        @Parameters(index = "0", arity = "0..1", paramLabel = "FROM")
        String from;

        @Parameters(index = "1", arity = "0..1", paramLabel = "TO")
        String to;

        @Option(names = "--limit", paramLabel = "N", description = "Print at most N entries (default ${DEFAULT-VALUE}).")
        int limit = 100;

        @Override
        int run(TandemKvClient client, PrintWriter out, PrintWriter err) {
            if (limit < 1) throw new ParameterException(spec.commandLine(), "--limit must be at least 1, was " + limit);
            byte[] next = from == null ? null : bytes(from, "FROM");
            byte[] end = to == null ? null : bytes(to, "TO");
            int printed = 0;
            while (printed < limit) {
                KvResult.Page page = client.scan(next, end, Math.min(1000, limit - printed));
                for (Entry e : page.entries()) {
                    out.println(show(e.key()) + " = " + show(e.value()));
                    printed++;
                }
                next = page.nextFrom();
                if (next == null) break;
            }
            if (next != null) err.println("(stopped after " + printed + " entries; more follow from " + quoted(next) + ": raise --limit)");
            else if (printed == 0) err.println("(no entries)");
            return OK;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "Show every member's role, leader, epoch (term, view or ballot round), commit and applied indexes, and on the leader each peer's lag: the same columns for every protocol.")
    static final class Status extends ClientCommand {
        @Override
        int run(TandemKvClient client, PrintWriter out, PrintWriter err) {
            Map<Endpoint, Object> all = client.statusAll();
            out.printf("%-6s %-22s %-10s %-8s %-6s %10s %10s %-16s %8s  %s%n", "node", "client address", "role", "leader", "epoch", "commit", "applied", "lag", "pid", "protocol");
            int answered = 0;
            for (var e : all.entrySet()) {
                if (e.getValue() instanceof NodeStatus s) {
                    answered++;
                    out.printf("%-6s %-22s %-10s %-8s %-6s %10s %10d %-16s %8d  %s%n", s.node(), e.getKey(), s.role(), s.leader() == null ? "-" : s.leader(),
                            s.epoch() < 0 ? "-" : Long.toString(s.epoch()), s.commitIndex() < 0 ? "-" : Long.toString(s.commitIndex()),
                            s.appliedIndex(), lag(s), s.pid(), s.protocol());
                } else {
                    out.printf("%-6s %-22s %s%n", "?", e.getKey(), "not answering: " + ((Throwable) e.getValue()).getMessage());
                }
            }
            return answered == all.size() ? OK : CLUSTER_ERROR;
        }

        /** "n2:0,n3:12" on a leader (entries each peer is behind), "-" elsewhere. */
        static String lag(NodeStatus s) {
            if (s.lag().isEmpty()) return "-";
            StringBuilder b = new StringBuilder();
            s.lag().forEach((peer, behind) -> b.append(b.isEmpty() ? "" : ",").append(peer).append(':').append(behind));
            return b.toString();
        }
    }

    @Command(name = "member", mixinStandardHelpOptions = true,
            description = {"Ask the leader for a membership change or a leadership transfer (Raft): add-learner, promote, remove or transfer NODE.",
                    "Needs the admin role on a cluster with client authentication (e.g. --tls-dir DIR --as admin)."})
    static final class Member extends ClientCommand {
        @picocli.CommandLine.Parameters(index = "0", paramLabel = "CHANGE", description = "add-learner | promote | remove | transfer")
        String change;

        @picocli.CommandLine.Parameters(index = "1", paramLabel = "NODE", description = "The member it applies to.")
        String node;

        @Override
        int run(TandemKvClient client, PrintWriter out, PrintWriter err) {
            io.tandem.kv.net.MembershipChange c = switch (change) {
                case "add-learner" -> io.tandem.kv.net.MembershipChange.ADD_LEARNER;
                case "promote" -> io.tandem.kv.net.MembershipChange.PROMOTE;
                case "remove" -> io.tandem.kv.net.MembershipChange.REMOVE;
                case "transfer" -> io.tandem.kv.net.MembershipChange.TRANSFER_LEADERSHIP;
                default -> throw new picocli.CommandLine.ParameterException(spec.commandLine(), "CHANGE must be add-learner, promote, remove or transfer, not '" + change + "'");
            };
            client.changeMembership(c, node);
            out.println("OK: " + change + " " + node);
            return OK;
        }
    }
}
